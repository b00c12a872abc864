; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 14 'split-inside': k <= kmax: k*align <= max(cap, 0) <= remaining - 1
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun block () Int)
(declare-fun ctx () Int)
(declare-fun q!5 () Int)
(declare-fun q!7 () Int)
(declare-fun q!9 () Int)
(declare-fun r!10 () Int)
(declare-fun r!8 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (= split_div_align q!9)))
 (let (($t2 (or $t1 (not (<= (+ rows (* (+ split_div_align 1) block)) S)))))
 (let (($t3 (and (and (>= split_div_align 0) (<= split_div_align q!9)) (<= (+ rows (* split_div_align block)) S))))
 (and $t3 $t2)))))
(assert
 (let (($t4 (>= start_div_align 0)))
 (and (and $t4 (= start (* block start_div_align))) (< start ctx))))
(assert
 (let (($t5 (>= r!10 0)))
 (let ((?t6 (* q!5 block)))
 (let ((?t7 (* q!7 block)))
 (let ((?t8 (ite (>= ?t6 ?t7) ?t7 ?t6)))
 (let (($t9 (and (= (ite (>= ?t8 0) ?t8 0) (+ (* block q!9) r!10)) $t5)))
 (let (($t10 (> block 0)))
 (=> $t10 (and $t9 (< r!10 block))))))))))
(assert
 (let (($t11 (>= r!8 0)))
 (let (($t12 (and (= (- (- ctx start) 1) (+ (* block q!7) r!8)) $t11)))
 (let (($t10 (> block 0)))
 (=> $t10 (and $t12 (< r!8 block)))))))
(assert
 (>= block 1))
(assert
 (let (($t13 (=> (<= (- q!9 split_div_align) 0) (<= (* block (- q!9 split_div_align)) 0))))
 (let (($t14 (=> (>= (- q!9 split_div_align) 0) (>= (* block (- q!9 split_div_align)) 0))))
 (let (($t15 (=> (<= (- q!9 split_div_align) (- 1)) (<= (* block (- q!9 split_div_align)) (- block)))))
 (let (($t16 (=> (>= (- q!9 split_div_align) 1) (>= (* block (- q!9 split_div_align)) block))))
 (let (($t17 (>= block 1)))
 (=> $t17 (and (and (and $t16 $t15) $t14) $t13))))))))
(assert
 (let ((?t18 (* block split_div_align)))
 (let (($t19 (<= ?t18 0)))
 (let (($t20 (<= split_div_align 0)))
 (let (($t21 (and (=> (>= split_div_align 1) (>= ?t18 block)) (=> (<= split_div_align (- 1)) (<= ?t18 (- block))))))
 (let (($t22 (and (and $t21 (=> (>= split_div_align 0) (>= ?t18 0))) (=> $t20 $t19))))
 (let (($t17 (>= block 1)))
 (=> $t17 $t22))))))))
(assert
 (let (($t23 (and (>= (* split_div_align block) 0) (<= (* split_div_align block) (- (- ctx start) 1)))))
 (not $t23)))
(check-sat)
