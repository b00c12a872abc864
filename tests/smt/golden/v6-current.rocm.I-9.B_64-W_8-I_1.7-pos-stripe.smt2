; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 7 'pos-stripe': p = I*a + u, a = W*t + o: p = (I*W)*t + I*o + u, 0 <= o < W, 0 <= u < I
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun position () Int)
(assert
 (let ((?t1 (div position 1)))
 (let ((?t2 (- ?t1 (* (div ?t1 8) 8))))
 (let ((?t3 (- position (* ?t1 1))))
 (let (($t4 (= position (+ (+ (* (* 1 8) (div ?t1 8)) (* 1 ?t2)) ?t3))))
 (let (($t5 (and (and (and $t4 (>= ?t2 0)) (<= ?t2 (- 8 1))) (>= ?t3 0))))
 (let (($t6 (and $t5 (<= ?t3 (- 1 1)))))
 (not $t6))))))))
(check-sat)
