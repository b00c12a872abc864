; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 6 'owned-le-padded-split-piece': the rows rank r owns of the span [start, end) are <= the entry's padded_local_len (for the piece, whatever the rest of the step)
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave rank rows split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun rank () Int)
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
 (let (($t2 (>= rank 0)))
 (and $t2 (< rank 8))))
(assert
 (let ((?t3 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t4 (div (- (+ (+ start (* split_div_align 64)) (* 1 8)) 1) 8)))
 (let ((?t5 (- (* ?t4 1) ?t3)))
 (let ((?t6 (* rank 1)))
 (let ((?t7 (- (- start (* (* (div (div start 1) 8) 1) 8)) ?t6)))
 (let ((?t8 (ite (>= ?t7 0) ?t7 0)))
 (let ((?t9 (* (div (div start 1) 8) 1)))
 (let ((?t10 (+ ?t9 (ite (>= ?t8 1) 1 ?t8))))
 (let ((?t11 (* (div (div (+ start (* split_div_align 64)) 1) 8) 1)))
 (let ((?t12 (* split_div_align 64)))
 (let ((?t13 (+ start ?t12)))
 (let ((?t14 (- (- ?t13 (* ?t11 8)) ?t6)))
 (let ((?t15 (ite (>= ?t14 0) ?t14 0)))
 (let (($t16 (<= (- (+ ?t11 (ite (>= ?t15 1) 1 ?t15)) ?t10) ?t5)))
 (not $t16))))))))))))))))
(check-sat)
