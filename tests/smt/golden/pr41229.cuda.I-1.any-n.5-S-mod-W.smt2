; chunkproof prove: pr41229 / cuda / I-1 (under DCP the workspace S is a multiple of W)
; split: any n; method: closed lemma chain: S = (x // W)*W, symbolic B/W/I, any max_model_len, max_num_seqs
; step 5 'S-mod-W': S mod W = S - W*(S // W) = q*W - W*q = 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: M S block chunk ctx0 dcp interleave max_model_len max_num_seqs
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun dcp () Int)
(declare-fun q!0 () Int)
(declare-fun q!13 () Int)
(assert
 (let ((?t1 (* q!0 dcp)))
 (= S ?t1)))
(assert
 (= q!13 q!0))
(assert
 (let (($t2 (= (- S (* q!13 dcp)) 0)))
 (not $t2)))
(check-sat)
