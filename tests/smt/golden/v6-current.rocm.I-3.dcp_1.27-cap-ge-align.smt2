; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 27 'cap-ge-align': remaining > align: floordiv(remaining - 1, align) >= 1, so cap >= align and kmax >= 1
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun ctx () Int)
(declare-fun q!5 () Int)
(declare-fun q!7 () Int)
(declare-fun q!9 () Int)
(declare-fun r!10 () Int)
(declare-fun r!8 () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (>= r!8 0)))
 (let (($t2 (and (= (- (- ctx start) 1) (+ (* block q!7) r!8)) $t1)))
 (let (($t3 (> block 0)))
 (=> $t3 (and $t2 (< r!8 block)))))))
(assert
 (let (($t4 (>= r!10 0)))
 (let ((?t5 (* q!5 block)))
 (let ((?t6 (* q!7 block)))
 (let ((?t7 (ite (>= ?t5 ?t6) ?t6 ?t5)))
 (let (($t8 (and (= (ite (>= ?t7 0) ?t7 0) (+ (* block q!9) r!10)) $t4)))
 (let (($t3 (> block 0)))
 (=> $t3 (and $t8 (< r!10 block))))))))))
(assert
 (let ((?t5 (* q!5 block)))
 (>= ?t5 block)))
(assert
 (>= block 1))
(assert
 (let (($t9 (and (=> (>= q!7 1) (>= (* block q!7) block)) (=> (<= q!7 (- 1)) (<= (* block q!7) (- block))))))
 (let (($t10 (and (and $t9 (=> (>= q!7 0) (>= (* block q!7) 0))) (=> (<= q!7 0) (<= (* block q!7) 0)))))
 (let (($t11 (>= block 1)))
 (=> $t11 $t10)))))
(assert
 (let (($t12 (=> (<= (- q!7 1) 0) (<= (* block (- q!7 1)) 0))))
 (let (($t13 (=> (>= (- q!7 1) 0) (>= (* block (- q!7 1)) 0))))
 (let (($t14 (=> (<= (- q!7 1) (- 1)) (<= (* block (- q!7 1)) (- block)))))
 (let (($t15 (=> (>= (- q!7 1) 1) (>= (* block (- q!7 1)) block))))
 (let (($t11 (>= block 1)))
 (=> $t11 (and (and (and $t15 $t14) $t13) $t12))))))))
(assert
 (let (($t16 (and (=> (>= q!9 1) (>= (* block q!9) block)) (=> (<= q!9 (- 1)) (<= (* block q!9) (- block))))))
 (let (($t17 (and (and $t16 (=> (>= q!9 0) (>= (* block q!9) 0))) (=> (<= q!9 0) (<= (* block q!9) 0)))))
 (let (($t11 (>= block 1)))
 (=> $t11 $t17)))))
(assert
 (let (($t18 (>= q!9 1)))
 (let (($t19 (=> (> (- ctx start) block) $t18)))
 (not $t19))))
(check-sat)
