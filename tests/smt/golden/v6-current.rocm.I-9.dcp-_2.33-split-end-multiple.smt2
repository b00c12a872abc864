; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 33 'split-end-multiple': start + k*align = (I*W)*Ts, Ts >= 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_x!1 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!15 () Int)
(declare-fun q!17 () Int)
(declare-fun q!19 () Int)
(declare-fun q!5 () Int)
(declare-fun q!9 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (<= (+ rows (- (* q!19 interleave) (* q!9 interleave))) q!5)))
 (let (($t2 (= split_div_align q!15)))
 (let (($t3 (<= (+ rows (- (* q!17 interleave) (* q!9 interleave))) q!5)))
 (let (($t4 (and (and (>= split_div_align 0) (<= split_div_align q!15)) $t3)))
 (and $t4 (or $t2 (not $t1))))))))
(assert
 (let ((?t5 (* lcm_y!2 start_div_align)))
 (let (($t6 (>= ?t5 0)))
 (and (= start (* (* interleave dcp) ?t5)) $t6))))
(assert
 (let (($t7 (>= lcm_y!2 1)))
 (let (($t8 (and (and (and (>= lcm!0 1) (>= lcm_x!1 1)) $t7) (= lcm!0 (* block lcm_x!1)))))
 (and (and $t8 (= lcm!0 (* (* interleave dcp) lcm_y!2))) (<= lcm!0 (* block (* interleave dcp)))))))
(assert
 (let ((?t9 (* interleave dcp)))
 (let ((?t10 (* ?t9 lcm_y!2)))
 (let ((?t11 (- lcm!0 ?t10)))
 (let ((?t12 (+ split_div_align 1)))
 (let ((?t13 (* ?t12 ?t11)))
 (let (($t14 (and (=> (>= ?t11 1) (>= ?t13 ?t12)) (=> (<= ?t11 (- 1)) (<= ?t13 (- ?t12))))))
 (let (($t15 (and (and $t14 (=> (>= ?t11 0) (>= ?t13 0))) (=> (<= ?t11 0) (<= ?t13 0)))))
 (=> (>= ?t12 1) $t15)))))))))
(assert
 (let ((?t16 (* lcm_y!2 split_div_align)))
 (let (($t17 (<= ?t16 0)))
 (let (($t18 (<= split_div_align 0)))
 (let (($t19 (and (=> (>= split_div_align 1) (>= ?t16 lcm_y!2)) (=> (<= split_div_align (- 1)) (<= ?t16 (- lcm_y!2))))))
 (let (($t20 (and (and $t19 (=> (>= split_div_align 0) (>= ?t16 0))) (=> $t18 $t17))))
 (let (($t7 (>= lcm_y!2 1)))
 (=> $t7 $t20))))))))
(assert
 (let ((?t16 (* lcm_y!2 split_div_align)))
 (let ((?t5 (* lcm_y!2 start_div_align)))
 (let ((?t21 (+ ?t5 ?t16)))
 (let (($t22 (>= ?t21 0)))
 (let ((?t23 (* split_div_align lcm!0)))
 (let ((?t24 (+ start ?t23)))
 (let (($t25 (and (= ?t24 (* (* interleave dcp) ?t21)) $t22)))
 (not $t25)))))))))
(check-sat)
