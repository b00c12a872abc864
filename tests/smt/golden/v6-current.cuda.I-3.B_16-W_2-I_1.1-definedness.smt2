; chunkproof prove: v6-current / cuda / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: B=16,W=2,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
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
 (and $t7 (<= rows (div S 2)))))
(assert
 (let ((?t8 (div S 2)))
 (let ((?t9 (* (div (- (+ start (* 1 2)) 1) 2) 1)))
 (let ((?t10 (- (+ (+ start (* (+ split_div_align 1) 16)) (* 1 2)) 1)))
 (let ((?t11 (div S 16)))
 (let ((?t12 (* ?t11 16)))
 (let ((?t13 (* (div (- (- ctx start) 1) 16) 16)))
 (let ((?t14 (ite (>= ?t12 ?t13) ?t13 ?t12)))
 (let ((?t15 (div (ite (>= ?t14 0) ?t14 0) 16)))
 (let (($t16 (or (= split_div_align ?t15) (not (<= (+ rows (- (* (div ?t10 2) 1) ?t9)) ?t8)))))
 (let ((?t17 (div (- (+ (+ start (* split_div_align 16)) (* 1 2)) 1) 2)))
 (let (($t18 (and (and (>= split_div_align 0) (<= split_div_align ?t15)) (<= (+ rows (- (* ?t17 1) ?t9)) ?t8))))
 (and $t18 $t16)))))))))))))
(assert
 (let (($t19 (>= split_div_align 1)))
 (let ((?t8 (div S 2)))
 (let ((?t9 (* (div (- (+ start (* 1 2)) 1) 2) 1)))
 (let ((?t20 (div (- (+ (+ start (- ctx start)) (* 1 2)) 1) 2)))
 (let (($t21 (= rows 0)))
 (=> $t21 (or (<= (+ rows (- (* ?t20 1) ?t9)) ?t8) $t19))))))))
(assert
 (let ((?t11 (div S 16)))
 (let ((?t12 (* ?t11 16)))
 (let (($t22 (> ?t12 0)))
 (let (($t23 (=> $t22 true)))
 (not $t23))))))
(check-sat)
