; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 102 'gp-local': 0 <= I*r + d <= I*W - 1: floordiv(g, I*W) = cL, local_index(g) = cL*I + d = L
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!45 () Int)
(declare-fun q!47 () Int)
(declare-fun q!51 () Int)
(declare-fun r!52 () Int)
(declare-fun rank () Int)
(declare-fun slot () Int)
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
 (let ((?t6 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t7 (- ?t6 (* q!47 interleave))))
 (and (= q!47 (+ (* dcp q!45) rank)) (= ?t7 ?t4)))))))
(assert
 (let (($t8 (>= r!52 0)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t6 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let (($t9 (and (and (= ?t6 (+ (* (* interleave dcp) q!51) r!52)) $t8) (< r!52 (* interleave dcp)))))
 (let ((?t10 (* interleave dcp)))
 (let (($t11 (> ?t10 0)))
 (=> $t11 $t9)))))))))
(assert
 (let (($t12 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t12)))
(assert
 (let (($t13 (and (=> (>= rank 1) (>= (* interleave rank) interleave)) (=> (<= rank (- 1)) (<= (* interleave rank) (- interleave))))))
 (let (($t14 (and (and $t13 (=> (>= rank 0) (>= (* interleave rank) 0))) (=> (<= rank 0) (<= (* interleave rank) 0)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 $t14)))))
(assert
 (let (($t15 (=> (<= (- (- dcp 1) rank) 0) (<= (* interleave (- (- dcp 1) rank)) 0))))
 (let (($t16 (=> (>= (- (- dcp 1) rank) 0) (>= (* interleave (- (- dcp 1) rank)) 0))))
 (let (($t17 (=> (<= (- (- dcp 1) rank) (- 1)) (<= (* interleave (- (- dcp 1) rank)) (- interleave)))))
 (let (($t18 (=> (>= (- (- dcp 1) rank) 1) (>= (* interleave (- (- dcp 1) rank)) interleave))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 (and (and (and $t18 $t17) $t16) $t15))))))))
(assert
 (let ((?t19 (- q!51 q!45)))
 (let (($t20 (<= ?t19 0)))
 (let (($t21 (<= ?t19 (- 1))))
 (let (($t22 (=> $t21 (<= (* (* interleave dcp) ?t19) (- (* interleave dcp))))))
 (let (($t23 (>= ?t19 1)))
 (let (($t24 (and (=> $t23 (>= (* (* interleave dcp) ?t19) (* interleave dcp))) $t22)))
 (let (($t25 (and $t24 (=> (>= ?t19 0) (>= (* (* interleave dcp) ?t19) 0)))))
 (let ((?t10 (* interleave dcp)))
 (let (($t26 (>= ?t10 1)))
 (=> $t26 (and $t25 (=> $t20 (<= (* ?t10 ?t19) 0))))))))))))))
(assert
 (let ((?t19 (- q!51 q!45)))
 (let (($t20 (<= ?t19 0)))
 (let (($t27 (and (=> (>= ?t19 1) (>= (* interleave ?t19) interleave)) (=> (<= ?t19 (- 1)) (<= (* interleave ?t19) (- interleave))))))
 (let (($t28 (and (and $t27 (=> (>= ?t19 0) (>= (* interleave ?t19) 0))) (=> $t20 (<= (* interleave ?t19) 0)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 $t28)))))))
(assert
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t6 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t7 (- ?t6 (* q!47 interleave))))
 (let ((?t29 (+ (* q!51 interleave) ?t7)))
 (let (($t30 (= ?t29 slot)))
 (let (($t31 (= q!51 q!45)))
 (let (($t32 (and $t31 $t30)))
 (not $t32))))))))))
(check-sat)
