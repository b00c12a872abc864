; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 32 'definedness': every divisor is positive where the plan is built (floor semantics exact)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun block_div_interleave () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_x!1 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!5 () Int)
(assert
 (>= block 1))
(assert
 (let (($t1 (>= block_div_interleave 1)))
 (and $t1 (= block (* interleave block_div_interleave)))))
(assert
 (= dcp 1))
(assert
 (let (($t2 (>= interleave 1)))
 (and $t2 (<= interleave block))))
(assert
 (let (($t1 (>= block_div_interleave 1)))
 (and $t1 (= block (* interleave block_div_interleave)))))
(assert
 (let (($t3 (>= lcm_y!2 1)))
 (let (($t4 (and (and (and (>= lcm!0 1) (>= lcm_x!1 1)) $t3) (= lcm!0 (* block lcm_x!1)))))
 (and (and $t4 (= lcm!0 (* (* interleave dcp) lcm_y!2))) (<= lcm!0 (* block (* interleave dcp)))))))
(assert
 (let (($t5 (and (=> (>= dcp 1) (>= (* interleave dcp) interleave)) (=> (<= dcp (- 1)) (<= (* interleave dcp) (- interleave))))))
 (let (($t6 (and (and $t5 (=> (>= dcp 0) (>= (* interleave dcp) 0))) (=> (<= dcp 0) (<= (* interleave dcp) 0)))))
 (let (($t2 (>= interleave 1)))
 (=> $t2 $t6)))))
(assert
 (let ((?t7 (* interleave dcp)))
 (let (($t8 (> ?t7 0)))
 (let (($t9 (> block 0)))
 (let (($t10 (= dcp 1)))
 (let ((?t11 (ite $t10 block lcm!0)))
 (let (($t12 (> ?t11 0)))
 (let (($t13 (and $t9 $t8)))
 (let ((?t14 (* q!5 block)))
 (let (($t15 (> ?t14 0)))
 (let (($t16 (=> $t15 (and $t13 $t12 $t9 $t9 $t9 $t8))))
 (not $t16))))))))))))
(check-sat)
