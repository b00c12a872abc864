; chunkproof prove: pr41229 / cuda / I-1 (under DCP the workspace S is a multiple of W)
; split: any n; method: closed lemma chain: S = (x // W)*W, symbolic B/W/I, any max_model_len, max_num_seqs
; step 6 'definedness': every divisor is positive where the plan is built (floor semantics exact)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: M S block chunk ctx0 dcp interleave max_model_len max_num_seqs
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun block_div_interleave () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!2 () Int)
(declare-fun lcm_x!3 () Int)
(declare-fun lcm_y!4 () Int)
(declare-fun q!5 () Int)
(assert
 (>= dcp 2))
(assert
 (>= block 1))
(assert
 (let (($t1 (>= block_div_interleave 1)))
 (and $t1 (= block (* interleave block_div_interleave)))))
(assert
 (let (($t2 (>= interleave 1)))
 (and $t2 (<= interleave block))))
(assert
 (let (($t1 (>= block_div_interleave 1)))
 (and $t1 (= block (* interleave block_div_interleave)))))
(assert
 (>= dcp 1))
(assert
 (let (($t3 (>= lcm_y!4 1)))
 (let (($t4 (and (and (and (>= lcm!2 1) (>= lcm_x!3 1)) $t3) (= lcm!2 (* block lcm_x!3)))))
 (and (and $t4 (= lcm!2 (* dcp lcm_y!4))) (<= lcm!2 (* block dcp))))))
(assert
 (let (($t5 (> dcp 0)))
 (let ((?t6 (* interleave dcp)))
 (let (($t7 (> ?t6 0)))
 (let ((?t8 (* q!5 lcm!2)))
 (let (($t9 (> ?t8 0)))
 (let (($t10 (> lcm!2 0)))
 (let (($t11 (and (> block 0) $t5)))
 (let (($t12 (=> $t9 (and $t5 $t11 $t10 $t9 $t7 $t7 $t5))))
 (not $t12))))))))))
(check-sat)
