; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 14 'token-onto-all-piece': every kept slot L of rank r is a gathered row holding a position of the span owned by r (for the piece, whatever the rest of the step)
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun rank () Int)
(declare-fun slot () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= start_div_align 0)))
 (and (and $t1 (= start (* 64 start_div_align))) (< start ctx))))
(assert
 (>= ctx 1))
(assert
 (let (($t2 (>= rank 0)))
 (and $t2 (< rank 8))))
(assert
 (let ((?t3 (- slot (* (div slot 1) 1))))
 (let ((?t4 (+ (+ (* (div slot 1) (* 1 8)) (* rank 1)) ?t3)))
 (let ((?t5 (div ?t4 1)))
 (let ((?t6 (- ?t4 (* ?t5 1))))
 (and (= ?t5 (+ (* 8 (div slot 1)) rank)) (= ?t6 ?t3)))))))
(assert
 (let ((?t3 (- slot (* (div slot 1) 1))))
 (let ((?t4 (+ (+ (* (div slot 1) (* 1 8)) (* rank 1)) ?t3)))
 (let ((?t5 (div ?t4 1)))
 (let ((?t7 (div ?t5 8)))
 (let (($t8 (= (- ?t5 (* ?t7 8)) rank)))
 (and (= ?t7 (div slot 1)) $t8)))))))
(assert
 (let ((?t3 (- slot (* (div slot 1) 1))))
 (let ((?t4 (+ (+ (* (div slot 1) (* 1 8)) (* rank 1)) ?t3)))
 (let ((?t5 (div ?t4 1)))
 (let ((?t6 (- ?t4 (* ?t5 1))))
 (let (($t9 (= (+ (* (div ?t4 8) 1) ?t6) slot)))
 (and (= (div ?t4 8) (div slot 1)) $t9)))))))
(assert
 (let ((?t3 (- slot (* (div slot 1) 1))))
 (let ((?t4 (+ (+ (* (div slot 1) (* 1 8)) (* rank 1)) ?t3)))
 (let ((?t5 (div ?t4 1)))
 (let ((?t6 (- ?t4 (* ?t5 1))))
 (let (($t9 (= (+ (* (div ?t4 8) 1) ?t6) slot)))
 (let (($t8 (= (- ?t5 (* (div ?t5 8) 8)) rank)))
 (let (($t10 (<= start ?t4)))
 (let ((?t11 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t12 (div (- (+ (+ start (- ctx start)) (* 1 8)) 1) 8)))
 (let ((?t13 (- (* ?t12 1) ?t11)))
 (let (($t14 (and (and (< slot (+ ?t11 ?t13)) $t10) (< ?t4 (+ start (- ctx start))))))
 (let ((?t15 (* rank 1)))
 (let ((?t16 (- ctx (* (* (div (div ctx 1) 8) 1) 8))))
 (let ((?t17 (- ?t16 ?t15)))
 (let ((?t18 (ite (>= ?t17 0) ?t17 0)))
 (let ((?t19 (* (div (div ctx 1) 8) 1)))
 (let ((?t20 (- (+ ?t19 (ite (>= ?t18 1) 1 ?t18)) ?t11)))
 (let ((?t21 (ite (>= ?t20 0) ?t20 0)))
 (let ((?t22 (ite (>= ?t21 ?t13) ?t13 ?t21)))
 (let (($t23 (<= ?t11 slot)))
 (let (($t24 (=> (and $t23 (< slot (+ ?t11 ?t22))) (and (and $t14 $t8) $t9))))
 (not $t24)))))))))))))))))))))))
(check-sat)
