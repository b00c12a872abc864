; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I; v6 without DCP: bounded by block <= 16384 (S0 <= 65536)
; step 13 'S0-ge-B': min(max(8*mml, 4*mns*B), 65536) >= B for 1 <= B <= 65536
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun block () Int)
(declare-fun block_div_interleave () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun max_model_len () Int)
(declare-fun max_num_seqs () Int)
(declare-fun q!3 () Int)
(assert
 (let ((?t1 (* (* 4 max_num_seqs) block)))
 (let ((?t2 (* 8 max_model_len)))
 (let ((?t3 (ite (>= ?t2 ?t1) ?t2 ?t1)))
 (let ((?t4 (ite (>= ?t3 65536) 65536 ?t3)))
 (let (($t5 (= dcp 1)))
 (= S (ite $t5 ?t4 (* q!3 (ite $t5 block lcm!0))))))))))
(assert
 (= dcp 1))
(assert
 (>= block 1))
(assert
 (let (($t6 (>= block_div_interleave 1)))
 (and $t6 (= block (* interleave block_div_interleave)))))
(assert
 (<= block 16384))
(assert
 (>= max_num_seqs 1))
(assert
 (let (($t7 (=> (<= (- max_num_seqs 1) 0) (<= (* block (- max_num_seqs 1)) 0))))
 (let (($t8 (=> (>= (- max_num_seqs 1) 0) (>= (* block (- max_num_seqs 1)) 0))))
 (let (($t9 (=> (<= (- max_num_seqs 1) (- 1)) (<= (* block (- max_num_seqs 1)) (- block)))))
 (let (($t10 (=> (>= (- max_num_seqs 1) 1) (>= (* block (- max_num_seqs 1)) block))))
 (let (($t11 (>= block 1)))
 (=> $t11 (and (and (and $t10 $t9) $t8) $t7))))))))
(assert
 (let (($t12 (>= S block)))
 (not $t12)))
(check-sat)
