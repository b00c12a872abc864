; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 3 'local-lengths-sum': sum over the W ranks of dcp_local_len(ctx, W, r, I) == ctx
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave rank rows split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(assert
 (>= ctx 1))
(assert
 (let ((?t1 (- ctx (* (* (div (div ctx 1) 8) 1) 8))))
 (let ((?t2 (- ?t1 (* 7 1))))
 (let ((?t3 (ite (>= ?t2 0) ?t2 0)))
 (let ((?t4 (* (div (div ctx 1) 8) 1)))
 (let ((?t5 (- ?t1 (* 6 1))))
 (let ((?t6 (ite (>= ?t5 0) ?t5 0)))
 (let ((?t7 (- ?t1 (* 5 1))))
 (let ((?t8 (ite (>= ?t7 0) ?t7 0)))
 (let ((?t9 (- ?t1 (* 4 1))))
 (let ((?t10 (ite (>= ?t9 0) ?t9 0)))
 (let ((?t11 (- ?t1 (* 3 1))))
 (let ((?t12 (ite (>= ?t11 0) ?t11 0)))
 (let ((?t13 (- ?t1 (* 2 1))))
 (let ((?t14 (ite (>= ?t13 0) ?t13 0)))
 (let ((?t15 (- ?t1 (* 1 1))))
 (let ((?t16 (ite (>= ?t15 0) ?t15 0)))
 (let ((?t17 (- ?t1 (* 0 1))))
 (let ((?t18 (ite (>= ?t17 0) ?t17 0)))
 (let ((?t19 (+ 0 (+ ?t4 (ite (>= ?t18 1) 1 ?t18)))))
 (let ((?t20 (+ ?t19 (+ ?t4 (ite (>= ?t16 1) 1 ?t16)))))
 (let ((?t21 (+ ?t20 (+ ?t4 (ite (>= ?t14 1) 1 ?t14)))))
 (let ((?t22 (+ ?t21 (+ ?t4 (ite (>= ?t12 1) 1 ?t12)))))
 (let ((?t23 (+ ?t22 (+ ?t4 (ite (>= ?t10 1) 1 ?t10)))))
 (let ((?t24 (+ ?t23 (+ ?t4 (ite (>= ?t8 1) 1 ?t8)))))
 (let ((?t25 (+ ?t24 (+ ?t4 (ite (>= ?t6 1) 1 ?t6)))))
 (let (($t26 (= (+ ?t25 (+ ?t4 (ite (>= ?t3 1) 1 ?t3))) ctx)))
 (not $t26))))))))))))))))))))))))))))
(check-sat)
