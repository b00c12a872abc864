; chunkproof prove: pr41229 / cuda / I-1 (under DCP the workspace S is a multiple of W)
; split: any n; method: closed lemma chain: S = (x // W)*W, symbolic B/W/I, any max_model_len, max_num_seqs
; step 4 'S-div-W': floordiv(q*W, W) = q
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: M S block chunk ctx0 dcp interleave max_model_len max_num_seqs
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun dcp () Int)
(declare-fun q!0 () Int)
(declare-fun q!13 () Int)
(declare-fun r!14 () Int)
(assert
 (let ((?t1 (* q!0 dcp)))
 (= S ?t1)))
(assert
 (let (($t2 (and (and (= S (+ (* dcp q!13) r!14)) (>= r!14 0)) (< r!14 dcp))))
 (let (($t3 (> dcp 0)))
 (=> $t3 $t2))))
(assert
 (>= dcp 1))
(assert
 (let (($t4 (=> (<= (- q!0 q!13) 0) (<= (* dcp (- q!0 q!13)) 0))))
 (let (($t5 (=> (>= (- q!0 q!13) 0) (>= (* dcp (- q!0 q!13)) 0))))
 (let (($t6 (=> (<= (- q!0 q!13) (- 1)) (<= (* dcp (- q!0 q!13)) (- dcp)))))
 (let (($t7 (=> (>= (- q!0 q!13) 1) (>= (* dcp (- q!0 q!13)) dcp))))
 (let (($t8 (>= dcp 1)))
 (=> $t8 (and (and (and $t7 $t6) $t5) $t4))))))))
(assert
 (let (($t9 (= q!13 q!0)))
 (not $t9)))
(check-sat)
