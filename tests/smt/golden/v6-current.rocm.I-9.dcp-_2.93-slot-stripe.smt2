; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 93 'slot-stripe': L = I*cL + d, 0 <= d < I
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!45 () Int)
(declare-fun r!46 () Int)
(declare-fun slot () Int)
(assert
 (let (($t1 (and (and (= slot (+ (* interleave q!45) r!46)) (>= r!46 0)) (< r!46 interleave))))
 (let (($t2 (> interleave 0)))
 (=> $t2 $t1))))
(assert
 (let (($t3 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t3)))
(assert
 (let ((?t4 (- interleave 1)))
 (let ((?t5 (* q!45 interleave)))
 (let ((?t6 (- slot ?t5)))
 (let (($t7 (<= ?t6 ?t4)))
 (let (($t8 (and (and (= slot (+ ?t5 ?t6)) (>= ?t6 0)) $t7)))
 (not $t8)))))))
(check-sat)
