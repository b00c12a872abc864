; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 37 'cdiv-one-align': k = 0: cdiv(V*Tq + V*mA, V) = Tq + mA
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_x!1 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!19 () Int)
(declare-fun r!20 () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= ?t1 0)))
 (and (= start (* (* interleave dcp) ?t1)) $t2))))
(assert
 (let (($t3 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t3)))
(assert
 (let (($t4 (>= lcm_y!2 1)))
 (let (($t5 (and (and (and (>= lcm!0 1) (>= lcm_x!1 1)) $t4) (= lcm!0 (* block lcm_x!1)))))
 (and (and $t5 (= lcm!0 (* (* interleave dcp) lcm_y!2))) (<= lcm!0 (* block (* interleave dcp)))))))
(assert
 (let (($t6 (>= r!20 0)))
 (let ((?t7 (* interleave dcp)))
 (let ((?t8 (- (+ (+ start (* (+ split_div_align 1) lcm!0)) ?t7) 1)))
 (let (($t9 (and (and (= ?t8 (+ (* ?t7 q!19) r!20)) $t6) (< r!20 ?t7))))
 (let (($t10 (> ?t7 0)))
 (=> $t10 $t9)))))))
(assert
 (let ((?t11 (* lcm!0 split_div_align)))
 (let (($t12 (<= ?t11 0)))
 (let (($t13 (<= split_div_align 0)))
 (let (($t14 (and (=> (>= split_div_align 1) (>= ?t11 lcm!0)) (=> (<= split_div_align (- 1)) (<= ?t11 (- lcm!0))))))
 (let (($t15 (and (and $t14 (=> (>= split_div_align 0) (>= ?t11 0))) (=> $t13 $t12))))
 (let (($t16 (>= lcm!0 1)))
 (=> $t16 $t15))))))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let ((?t17 (+ ?t1 lcm_y!2)))
 (let ((?t18 (- ?t17 q!19)))
 (let ((?t7 (* interleave dcp)))
 (let ((?t19 (* ?t7 ?t18)))
 (let (($t20 (and (=> (>= ?t18 1) (>= ?t19 ?t7)) (=> (<= ?t18 (- 1)) (<= ?t19 (- ?t7))))))
 (let (($t21 (and (and $t20 (=> (>= ?t18 0) (>= ?t19 0))) (=> (<= ?t18 0) (<= ?t19 0)))))
 (let (($t22 (>= ?t7 1)))
 (=> $t22 $t21))))))))))
(assert
 (let (($t23 (= split_div_align 0)))
 (let (($t24 (=> $t23 (= q!19 (+ (* lcm_y!2 start_div_align) lcm_y!2)))))
 (not $t24))))
(check-sat)
