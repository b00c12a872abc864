; chunkproof prove: v1-dcp / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: n=1; method: split n = 1, pinned B/W/I (numerals), arbitrary chunk index
; step 5 'gp-local': 0 <= I*r + d <= I*W - 1: floordiv(g, I*W) = cL, local_index(g) = L
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..1 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: M S block chunk ctx0 dcp interleave position rank slot
; 
(set-info :status unknown)
(declare-fun rank () Int)
(declare-fun slot () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank 8))))
(assert
 (let ((?t2 (- slot (* (div slot 1) 1))))
 (let ((?t3 (+ (+ (* (div slot 1) (* 1 8)) (* rank 1)) ?t2)))
 (let ((?t4 (div ?t3 1)))
 (let ((?t5 (- ?t3 (* ?t4 1))))
 (and (= ?t4 (+ (* 8 (div slot 1)) rank)) (= ?t5 ?t2)))))))
(assert
 (let ((?t2 (- slot (* (div slot 1) 1))))
 (let ((?t3 (+ (+ (* (div slot 1) (* 1 8)) (* rank 1)) ?t2)))
 (let ((?t4 (div ?t3 1)))
 (let ((?t5 (- ?t3 (* ?t4 1))))
 (let (($t6 (= (+ (* (div ?t3 8) 1) ?t5) slot)))
 (let (($t7 (and (= (div ?t3 8) (div slot 1)) $t6)))
 (not $t7))))))))
(check-sat)
