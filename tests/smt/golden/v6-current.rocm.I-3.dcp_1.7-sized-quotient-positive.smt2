; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 7 'sized-quotient-positive': x >= S0 >= 1, so A*qU >= x >= 1 and qU >= 1
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun lcm!0 () Int)
(declare-fun max_model_len () Int)
(declare-fun max_num_seqs () Int)
(declare-fun q!3 () Int)
(declare-fun r!4 () Int)
(assert
 (>= max_model_len 1))
(assert
 (>= max_num_seqs 1))
(assert
 (>= block 1))
(assert
 (let (($t1 (>= r!4 0)))
 (let ((?t2 (ite true block lcm!0)))
 (let ((?t3 (* (* 4 max_num_seqs) block)))
 (let ((?t4 (* 8 max_model_len)))
 (let ((?t5 (ite (>= ?t4 ?t3) ?t4 ?t3)))
 (let ((?t6 (ite (>= ?t5 65536) 65536 ?t5)))
 (let (($t7 (= (- (+ (ite (>= ?t6 ?t2) ?t6 ?t2) ?t2) 1) (+ (* ?t2 q!3) r!4))))
 (=> (> ?t2 0) (and (and $t7 $t1) (< r!4 ?t2)))))))))))
(assert
 (let (($t8 (and (=> (>= q!3 1) (>= (* block q!3) block)) (=> (<= q!3 (- 1)) (<= (* block q!3) (- block))))))
 (let (($t9 (and (and $t8 (=> (>= q!3 0) (>= (* block q!3) 0))) (=> (<= q!3 0) (<= (* block q!3) 0)))))
 (let (($t10 (>= block 1)))
 (=> $t10 $t9)))))
(assert
 (let (($t11 (>= q!3 1)))
 (not $t11)))
(check-sat)
