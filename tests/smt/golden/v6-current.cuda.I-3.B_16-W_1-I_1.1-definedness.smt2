; chunkproof prove: v6-current / cuda / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: B=16,W=1,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 1 'definedness': every divisor is positive where the plan is built (floor semantics exact)
; domain: block 1..16384, dcp 1..2, interleave | block (<= 1), S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid: block in {16} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..2
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun ctx () Int)
(declare-fun max_model_len () Int)
(declare-fun max_num_seqs () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (>= max_model_len 1))
(assert
 (<= max_model_len 2097152))
(assert
 (>= max_num_seqs 1))
(assert
 (<= max_num_seqs 1024))
(assert
 (let ((?t1 (* (* 4 max_num_seqs) 16)))
 (let ((?t2 (* 8 max_model_len)))
 (let ((?t3 (ite (>= ?t2 ?t1) ?t2 ?t1)))
 (let ((?t4 (ite (>= ?t3 65536) 65536 ?t3)))
 (let ((?t5 (* (div (- (+ (ite (>= ?t4 16) ?t4 16) 16) 1) 16) 16)))
 (= S ?t5)))))))
(assert
 (>= ctx 1))
(assert
 (let (($t6 (>= start_div_align 0)))
 (and (and $t6 (= start (* 16 start_div_align))) (< start ctx))))
(assert
 (let (($t7 (>= rows 0)))
 (and $t7 (<= rows S))))
(assert
 (let ((?t8 (div S 16)))
 (let ((?t9 (* ?t8 16)))
 (let ((?t10 (* (div (- (- ctx start) 1) 16) 16)))
 (let ((?t11 (ite (>= ?t9 ?t10) ?t10 ?t9)))
 (let ((?t12 (div (ite (>= ?t11 0) ?t11 0) 16)))
 (let (($t13 (or (= split_div_align ?t12) (not (<= (+ rows (* (+ split_div_align 1) 16)) S)))))
 (let (($t14 (and (and (>= split_div_align 0) (<= split_div_align ?t12)) (<= (+ rows (* split_div_align 16)) S))))
 (and $t14 $t13)))))))))
(assert
 (let (($t15 (>= split_div_align 1)))
 (let (($t16 (= rows 0)))
 (=> $t16 (or (<= (+ rows (- ctx start)) S) $t15)))))
(assert
 (let ((?t8 (div S 16)))
 (let ((?t9 (* ?t8 16)))
 (let (($t17 (> ?t9 0)))
 (let (($t18 (=> $t17 true)))
 (not $t18))))))
(check-sat)
