; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 107 'slot-vs-start': x - start = (I*W)*(t - Tq) + I*o + u with 0 <= I*o + u <= I*W - 1
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
(declare-fun rank () Int)
(declare-fun slot () Int)
(declare-fun start () Int)
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
 (let (($t12 (>= ?t11 0)))
 (and (= start (* (* interleave dcp) ?t11)) $t12))))
(assert
 (let (($t13 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t13)))
(assert
 (let ((?t11 (* lcm_y!2 start_div_align)))
 (let ((?t14 (- q!45 ?t11)))
 (let ((?t15 (* interleave dcp)))
 (let ((?t16 (* ?t15 ?t14)))
 (let (($t17 (<= ?t14 0)))
 (let (($t18 (and (=> (>= ?t14 1) (>= ?t16 ?t15)) (=> (<= ?t14 (- 1)) (<= ?t16 (- ?t15))))))
 (let (($t19 (and (and $t18 (=> (>= ?t14 0) (>= ?t16 0))) (=> $t17 (<= ?t16 0)))))
 (let (($t20 (>= ?t15 1)))
 (=> $t20 $t19))))))))))
(assert
 (let (($t21 (=> (<= (- (- dcp 1) rank) 0) (<= (* interleave (- (- dcp 1) rank)) 0))))
 (let (($t22 (=> (>= (- (- dcp 1) rank) 0) (>= (* interleave (- (- dcp 1) rank)) 0))))
 (let (($t23 (=> (<= (- (- dcp 1) rank) (- 1)) (<= (* interleave (- (- dcp 1) rank)) (- interleave)))))
 (let (($t24 (=> (>= (- (- dcp 1) rank) 1) (>= (* interleave (- (- dcp 1) rank)) interleave))))
 (let (($t13 (>= interleave 1)))
 (=> $t13 (and (and (and $t24 $t23) $t22) $t21))))))))
(assert
 (let (($t25 (and (=> (>= rank 1) (>= (* interleave rank) interleave)) (=> (<= rank (- 1)) (<= (* interleave rank) (- interleave))))))
 (let (($t26 (and (and $t25 (=> (>= rank 0) (>= (* interleave rank) 0))) (=> (<= rank 0) (<= (* interleave rank) 0)))))
 (let (($t13 (>= interleave 1)))
 (=> $t13 $t26)))))
(assert
 (let ((?t11 (* lcm_y!2 start_div_align)))
 (let (($t27 (>= q!45 ?t11)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t7 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let (($t28 (>= ?t7 start)))
 (let (($t29 (= $t28 $t27)))
 (not $t29)))))))))
(check-sat)
