; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 110 'slot-local-vs-start': local index - local_start = I*(t - Tq) + u, 0 <= u <= I - 1
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
(declare-fun q!45 () Int)
(declare-fun q!47 () Int)
(declare-fun q!51 () Int)
(declare-fun q!9 () Int)
(declare-fun rank () Int)
(declare-fun slot () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (- interleave 1)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let (($t5 (<= ?t4 ?t2)))
 (and (and (= slot (+ ?t3 ?t4)) (>= ?t4 0)) $t5))))))
(assert
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t6 (+ ?t3 ?t4)))
 (let ((?t7 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t8 (- ?t7 (* q!47 interleave))))
 (let ((?t9 (+ (* q!51 interleave) ?t8)))
 (let ((?t10 (+ (+ (* (* interleave dcp) q!45) (* interleave rank)) ?t4)))
 (and (= ?t7 ?t10) (= ?t9 ?t6))))))))))
(assert
 (let ((?t11 (* lcm_y!2 start_div_align)))
 (= q!9 ?t11)))
(assert
 (let (($t12 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t12)))
(assert
 (let ((?t11 (* lcm_y!2 start_div_align)))
 (let ((?t13 (- q!45 ?t11)))
 (let (($t14 (<= ?t13 0)))
 (let (($t15 (and (=> (>= ?t13 1) (>= (* interleave ?t13) interleave)) (=> (<= ?t13 (- 1)) (<= (* interleave ?t13) (- interleave))))))
 (let (($t16 (and (and $t15 (=> (>= ?t13 0) (>= (* interleave ?t13) 0))) (=> $t14 (<= (* interleave ?t13) 0)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 $t16))))))))
(assert
 (let (($t17 (=> (<= (- q!9 (* lcm_y!2 start_div_align)) 0) (<= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let (($t18 (=> (>= (- q!9 (* lcm_y!2 start_div_align)) 0) (>= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let ((?t19 (- interleave)))
 (let ((?t11 (* lcm_y!2 start_div_align)))
 (let ((?t20 (- q!9 ?t11)))
 (let ((?t21 (* interleave ?t20)))
 (let (($t22 (and (=> (>= ?t20 1) (>= ?t21 interleave)) (=> (<= ?t20 (- 1)) (<= ?t21 ?t19)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 (and (and $t22 $t18) $t17)))))))))))
(assert
 (let ((?t11 (* lcm_y!2 start_div_align)))
 (let (($t23 (>= q!45 ?t11)))
 (let ((?t24 (* q!9 interleave)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t7 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t8 (- ?t7 (* q!47 interleave))))
 (let ((?t9 (+ (* q!51 interleave) ?t8)))
 (let (($t25 (>= ?t9 ?t24)))
 (let (($t26 (= $t25 $t23)))
 (not $t26))))))))))))
(check-sat)
