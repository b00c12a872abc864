; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 16 'token-owner-row-split-piece': a position p of the span owned by o sits in one of o's kept slots, which holds p (for the piece, whatever the rest of the step)
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun position () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= start_div_align 0)))
 (and (and $t1 (= start (* 64 start_div_align))) (< start ctx))))
(assert
 (>= ctx 1))
(assert
 (and (>= (* split_div_align 64) 0) (<= (* split_div_align 64) (- (- ctx start) 1))))
(assert
 (let ((?t2 (div position 1)))
 (let ((?t3 (- ?t2 (* (div ?t2 8) 8))))
 (let ((?t4 (- position (* ?t2 1))))
 (let (($t5 (= position (+ (+ (* (* 1 8) (div ?t2 8)) (* 1 ?t3)) ?t4))))
 (let (($t6 (and (and (and $t5 (>= ?t3 0)) (<= ?t3 (- 8 1))) (>= ?t4 0))))
 (and $t6 (<= ?t4 (- 1 1)))))))))
(assert
 (let ((?t4 (- position (* (div position 1) 1))))
 (let ((?t7 (+ (* (div position 8) 1) ?t4)))
 (and (= (div position 8) (div (div position 1) 8)) (= ?t7 (+ (* (div (div position 1) 8) 1) ?t4))))))
(assert
 (let ((?t4 (- position (* (div position 1) 1))))
 (let ((?t7 (+ (* (div position 8) 1) ?t4)))
 (let ((?t8 (div ?t7 1)))
 (let ((?t2 (div position 1)))
 (let ((?t3 (- ?t2 (* (div ?t2 8) 8))))
 (let ((?t9 (* ?t3 1)))
 (let (($t10 (= (+ (+ (* ?t8 (* 1 8)) ?t9) (- ?t7 (* ?t8 1))) position)))
 (let ((?t11 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t12 (- ctx (* (* (div (div ctx 1) 8) 1) 8))))
 (let ((?t13 (- ?t12 ?t9)))
 (let ((?t14 (ite (>= ?t13 0) ?t13 0)))
 (let ((?t15 (* (div (div ctx 1) 8) 1)))
 (let ((?t16 (- (+ ?t15 (ite (>= ?t14 1) 1 ?t14)) ?t11)))
 (let ((?t17 (ite (>= ?t16 0) ?t16 0)))
 (let ((?t18 (div (- (+ (+ start (* split_div_align 64)) (* 1 8)) 1) 8)))
 (let ((?t19 (- (* ?t18 1) ?t11)))
 (let (($t20 (<= ?t11 ?t7)))
 (let (($t21 (and (and $t20 (< ?t7 (+ ?t11 (ite (>= ?t17 ?t19) ?t19 ?t17)))) $t10)))
 (let (($t22 (<= start position)))
 (let (($t23 (=> (and $t22 (< position (+ start (* split_div_align 64)))) $t21)))
 (not $t23))))))))))))))))))))))
(check-sat)
