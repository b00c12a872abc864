; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 72 'pos-local-vs-start': local index - local_start = I*(t - Tq) + u, 0 <= u <= I - 1
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
(declare-fun q!9 () Int)
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
 (= q!9 ?t10)))
(assert
 (let (($t11 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t11)))
(assert
 (let ((?t10 (* lcm_y!2 start_div_align)))
 (let ((?t12 (- q!39 ?t10)))
 (let (($t13 (<= ?t12 0)))
 (let (($t14 (and (=> (>= ?t12 1) (>= (* interleave ?t12) interleave)) (=> (<= ?t12 (- 1)) (<= (* interleave ?t12) (- interleave))))))
 (let (($t15 (and (and $t14 (=> (>= ?t12 0) (>= (* interleave ?t12) 0))) (=> $t13 (<= (* interleave ?t12) 0)))))
 (let (($t11 (>= interleave 1)))
 (=> $t11 $t15))))))))
(assert
 (let (($t16 (=> (<= (- q!9 (* lcm_y!2 start_div_align)) 0) (<= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let (($t17 (=> (>= (- q!9 (* lcm_y!2 start_div_align)) 0) (>= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let ((?t18 (- interleave)))
 (let ((?t10 (* lcm_y!2 start_div_align)))
 (let ((?t19 (- q!9 ?t10)))
 (let ((?t20 (* interleave ?t19)))
 (let (($t21 (and (=> (>= ?t19 1) (>= ?t20 interleave)) (=> (<= ?t19 (- 1)) (<= ?t20 ?t18)))))
 (let (($t11 (>= interleave 1)))
 (=> $t11 (and (and $t21 $t17) $t16)))))))))))
(assert
 (let ((?t10 (* lcm_y!2 start_div_align)))
 (let (($t22 (>= q!39 ?t10)))
 (let ((?t23 (* q!9 interleave)))
 (let ((?t2 (- position (* q!37 interleave))))
 (let ((?t8 (+ (* q!41 interleave) ?t2)))
 (let (($t24 (>= ?t8 ?t23)))
 (let (($t25 (= $t24 $t22)))
 (not $t25)))))))))
(check-sat)
