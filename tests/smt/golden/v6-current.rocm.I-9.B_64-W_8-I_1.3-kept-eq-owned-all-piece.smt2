; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 3 'kept-eq-owned-all-piece': rank r's reorg keeps 0 <= kept <= padded_local_len rows, exactly the rows it owns of the span (for the piece, whatever the rest of the step)
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun rank () Int)
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
 (let ((?t3 (* rank 1)))
 (let ((?t4 (- (- start (* (* (div (div start 1) 8) 1) 8)) ?t3)))
 (let ((?t5 (ite (>= ?t4 0) ?t4 0)))
 (let ((?t6 (* (div (div start 1) 8) 1)))
 (let ((?t7 (+ ?t6 (ite (>= ?t5 1) 1 ?t5))))
 (let ((?t8 (* (div (div (+ start (- ctx start)) 1) 8) 1)))
 (let ((?t9 (- ctx start)))
 (let ((?t10 (+ start ?t9)))
 (let ((?t11 (- (- ?t10 (* ?t8 8)) ?t3)))
 (let ((?t12 (ite (>= ?t11 0) ?t11 0)))
 (let ((?t13 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t14 (- ctx (* (* (div (div ctx 1) 8) 1) 8))))
 (let ((?t15 (- ?t14 ?t3)))
 (let ((?t16 (ite (>= ?t15 0) ?t15 0)))
 (let ((?t17 (* (div (div ctx 1) 8) 1)))
 (let ((?t18 (- (+ ?t17 (ite (>= ?t16 1) 1 ?t16)) ?t13)))
 (let ((?t19 (ite (>= ?t18 0) ?t18 0)))
 (let ((?t20 (- (* (div (- (+ ?t10 (* 1 8)) 1) 8) 1) ?t13)))
 (let ((?t21 (ite (>= ?t19 ?t20) ?t20 ?t19)))
 (let (($t22 (and (and (>= ?t21 0) (<= ?t21 ?t20)) (= ?t21 (- (+ ?t8 (ite (>= ?t12 1) 1 ?t12)) ?t7)))))
 (not $t22))))))))))))))))))))))
(check-sat)
