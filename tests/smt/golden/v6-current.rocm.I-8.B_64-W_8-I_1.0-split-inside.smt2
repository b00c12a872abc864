; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 0 'split-inside': k <= kmax: k*align <= max(cap, 0) <= remaining - 1
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave rank rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun ctx () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (div S 8)))
 (let ((?t2 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t3 (- (+ (+ start (* (+ split_div_align 1) 64)) (* 1 8)) 1)))
 (let ((?t4 (div S 64)))
 (let ((?t5 (* ?t4 64)))
 (let ((?t6 (* (div (- (- ctx start) 1) 64) 64)))
 (let ((?t7 (ite (>= ?t5 ?t6) ?t6 ?t5)))
 (let ((?t8 (div (ite (>= ?t7 0) ?t7 0) 64)))
 (let (($t9 (or (= split_div_align ?t8) (not (<= (+ rows (- (* (div ?t3 8) 1) ?t2)) ?t1)))))
 (let ((?t10 (div (- (+ (+ start (* split_div_align 64)) (* 1 8)) 1) 8)))
 (let ((?t11 (- (* ?t10 1) ?t2)))
 (let (($t12 (and (and (>= split_div_align 0) (<= split_div_align ?t8)) (<= (+ rows ?t11) ?t1))))
 (and $t12 $t9))))))))))))))
(assert
 (let (($t13 (>= start_div_align 0)))
 (and (and $t13 (= start (* 64 start_div_align))) (< start ctx))))
(assert
 (>= ctx 1))
(assert
 (let (($t14 (and (>= (* split_div_align 64) 0) (<= (* split_div_align 64) (- (- ctx start) 1)))))
 (not $t14)))
(check-sat)
