; chunkproof prove: pr41229 / cuda / I-1 (under DCP the workspace S is a multiple of W)
; split: any n; method: closed lemma chain: S = (x // W)*W, symbolic B/W/I, any max_model_len, max_num_seqs
; step 1 'W-positive': W >= 2
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: M S block chunk ctx0 dcp interleave max_model_len max_num_seqs
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(assert
 (>= dcp 2))
(assert
 (let (($t1 (>= dcp 1)))
 (not $t1)))
(check-sat)
