; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 69 'pos-vs-start': x - start = (I*W)*(t - Tq) + I*o + u with 0 <= I*o + u <= I*W - 1
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun position () Int)
(declare-fun q!37 () Int)
(declare-fun q!39 () Int)
(declare-fun q!41 () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (- interleave 1)))
 (let ((?t2 (- position (* q!37 interleave))))
 (let (($t3 (<= ?t2 ?t1)))
 (let (($t4 (>= ?t2 0)))
 (let ((?t5 (- q!37 (* q!39 dcp))))
 (let (($t6 (>= ?t5 0)))
 (let (($t7 (= position (+ (+ (* (* interleave dcp) q!39) (* interleave ?t5)) ?t2))))
 (and (and (and (and $t7 $t6) (<= ?t5 (- dcp 1))) $t4) $t3)))))))))
(assert
 (let ((?t2 (- position (* q!37 interleave))))
 (let ((?t8 (+ (* q!41 interleave) ?t2)))
 (let (($t9 (= q!41 q!39)))
 (and $t9 (= ?t8 (+ (* q!39 interleave) ?t2)))))))
(assert
 (let ((?t10 (* lcm_y!2 start_div_align)))
 (let (($t11 (>= ?t10 0)))
 (and (= start (* (* interleave dcp) ?t10)) $t11))))
(assert
 (let (($t12 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t12)))
(assert
 (let ((?t10 (* lcm_y!2 start_div_align)))
 (let ((?t13 (- q!39 ?t10)))
 (let ((?t14 (* interleave dcp)))
 (let ((?t15 (* ?t14 ?t13)))
 (let (($t16 (<= ?t13 0)))
 (let (($t17 (and (=> (>= ?t13 1) (>= ?t15 ?t14)) (=> (<= ?t13 (- 1)) (<= ?t15 (- ?t14))))))
 (let (($t18 (and (and $t17 (=> (>= ?t13 0) (>= ?t15 0))) (=> $t16 (<= ?t15 0)))))
 (let (($t19 (>= ?t14 1)))
 (=> $t19 $t18))))))))))
(assert
 (let ((?t5 (- q!37 (* q!39 dcp))))
 (let ((?t20 (- dcp 1)))
 (let ((?t21 (- ?t20 ?t5)))
 (let ((?t22 (* interleave ?t21)))
 (let (($t23 (and (=> (>= ?t21 1) (>= ?t22 interleave)) (=> (<= ?t21 (- 1)) (<= ?t22 (- interleave))))))
 (let (($t24 (and (and $t23 (=> (>= ?t21 0) (>= ?t22 0))) (=> (<= ?t21 0) (<= ?t22 0)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 $t24)))))))))
(assert
 (let (($t25 (=> (<= (- q!37 (* q!39 dcp)) 0) (<= (* interleave (- q!37 (* q!39 dcp))) 0))))
 (let ((?t5 (- q!37 (* q!39 dcp))))
 (let (($t6 (>= ?t5 0)))
 (let (($t26 (and (=> (>= ?t5 1) (>= (* interleave ?t5) interleave)) (=> (<= ?t5 (- 1)) (<= (* interleave ?t5) (- interleave))))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 (and (and $t26 (=> $t6 (>= (* interleave ?t5) 0))) $t25))))))))
(assert
 (let ((?t10 (* lcm_y!2 start_div_align)))
 (let (($t27 (>= q!39 ?t10)))
 (let (($t28 (>= position start)))
 (let (($t29 (= $t28 $t27)))
 (not $t29))))))
(check-sat)
