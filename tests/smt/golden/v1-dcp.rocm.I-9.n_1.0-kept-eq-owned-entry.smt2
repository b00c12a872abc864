; chunkproof prove: v1-dcp / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: n=1; method: split n = 1, pinned B/W/I (numerals), arbitrary chunk index
; step 0 'kept-eq-owned-entry': rank r's reorg keeps 0 <= kept <= padded_local_len rows, exactly the rows it owns of the span
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..1 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: M S block chunk ctx0 dcp interleave position rank slot
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun chunk () Int)
(declare-fun ctx0 () Int)
(declare-fun q!0 () Int)
(declare-fun r!1 () Int)
(declare-fun rank () Int)
(assert
 (let (($t1 (<= S 65536)))
 (let (($t2 (>= S 1)))
 (and $t2 $t1))))
(assert
 (= S 65536))
(assert
 (let (($t3 (<= ctx0 2097152)))
 (let (($t4 (>= ctx0 1)))
 (and $t4 $t3))))
(assert
 (>= chunk 0))
(assert
 (let (($t5 (>= rank 0)))
 (and $t5 (< rank 8))))
(assert
 (let (($t6 (>= r!1 0)))
 (let ((?t7 (* (div (div S 1) 1) 1)))
 (let ((?t8 (ite (< 0 ctx0) ctx0 0)))
 (let (($t9 (and (and (= (- (+ ?t8 ?t7) 1) (+ (* ?t7 q!0) r!1)) $t6) (< r!1 ?t7))))
 (let (($t10 (> ?t7 0)))
 (=> $t10 $t9)))))))
(assert
 (let ((?t11 (* rank 1)))
 (let ((?t12 (div (div (* chunk (* (div (div S 1) 1) 1)) 1) 8)))
 (let ((?t13 (* ?t12 1)))
 (let ((?t7 (* (div (div S 1) 1) 1)))
 (let ((?t14 (* chunk ?t7)))
 (let ((?t15 (- (- ?t14 (* ?t13 8)) ?t11)))
 (let ((?t16 (ite (>= ?t15 0) ?t15 0)))
 (let ((?t17 (+ chunk 1)))
 (let ((?t18 (* ?t17 ?t7)))
 (let ((?t19 (- (ite (>= ctx0 ?t18) ?t18 ctx0) ?t14)))
 (let ((?t20 (+ ?t14 (ite (>= ?t19 0) ?t19 0))))
 (let ((?t21 (* (div (div ?t20 1) 8) 1)))
 (let ((?t22 (- (- ?t20 (* ?t21 8)) ?t11)))
 (let ((?t23 (ite (>= ?t22 0) ?t22 0)))
 (let ((?t24 (- (+ ?t21 (ite (>= ?t23 1) 1 ?t23)) (+ ?t13 (ite (>= ?t16 1) 1 ?t16)))))
 (let ((?t25 (div ?t7 8)))
 (let ((?t26 (* chunk ?t25)))
 (let ((?t27 (div (- (+ ctx0 8) 1) 8)))
 (let ((?t28 (* ?t17 ?t25)))
 (let ((?t29 (- (ite (>= ?t27 ?t28) ?t28 ?t27) ?t26)))
 (let ((?t30 (ite (>= ?t29 0) ?t29 0)))
 (let ((?t31 (- ?t30 1)))
 (let (($t32 (> ?t30 0)))
 (let ((?t33 (- ctx0 (* ?t7 chunk))))
 (let ((?t34 (- (ite (= ?t30 0) ?t7 (ite (>= ?t7 ?t33) ?t33 ?t7)) 1)))
 (let ((?t35 (- ?t34 (* (div ?t34 8) 8))))
 (let ((?t36 (ite (and (> rank ?t35) $t32) ?t31 ?t30)))
 (let (($t10 (> ?t7 0)))
 (let (($t37 (and $t10 (< chunk q!0))))
 (let (($t38 (=> $t37 (and (and (>= ?t36 0) (<= ?t36 ?t30)) (= ?t36 ?t24)))))
 (not $t38))))))))))))))))))))))))))))))))
(check-sat)
