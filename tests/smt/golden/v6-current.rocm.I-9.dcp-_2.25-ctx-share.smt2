; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 25 'ctx-share': b*I <= dcp_local_len(e) <= padded_local_rows(e), equal when rem = 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!29 () Int)
(declare-fun q!31 () Int)
(declare-fun rank () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (* interleave dcp)))
 (let ((?t3 (- ?t2 1)))
 (let ((?t4 (- ctx (* (* q!29 interleave) dcp))))
 (and (>= ?t4 0) (<= ?t4 ?t3))))))
(assert
 (let (($t5 (=> (>= (- ctx (* (* q!29 interleave) dcp)) 1) (= q!31 (+ q!29 1)))))
 (let (($t6 (= q!31 q!29)))
 (let ((?t4 (- ctx (* (* q!29 interleave) dcp))))
 (let (($t7 (= ?t4 0)))
 (and (=> $t7 $t6) $t5))))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let (($t9 (and (=> (>= rank 1) (>= (* interleave rank) interleave)) (=> (<= rank (- 1)) (<= (* interleave rank) (- interleave))))))
 (let (($t10 (and (and $t9 (=> (>= rank 0) (>= (* interleave rank) 0))) (=> (<= rank 0) (<= (* interleave rank) 0)))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 $t10)))))
(assert
 (let ((?t11 (- q!31 q!29)))
 (let (($t12 (<= ?t11 0)))
 (let (($t13 (and (=> (>= ?t11 1) (>= (* interleave ?t11) interleave)) (=> (<= ?t11 (- 1)) (<= (* interleave ?t11) (- interleave))))))
 (let (($t14 (and (and $t13 (=> (>= ?t11 0) (>= (* interleave ?t11) 0))) (=> $t12 (<= (* interleave ?t11) 0)))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 $t14)))))))
(assert
 (let ((?t11 (- q!31 q!29)))
 (let ((?t15 (- ?t11 1)))
 (let (($t16 (<= ?t15 0)))
 (let (($t17 (and (=> (>= ?t15 1) (>= (* interleave ?t15) interleave)) (=> (<= ?t15 (- 1)) (<= (* interleave ?t15) (- interleave))))))
 (let (($t18 (and (and $t17 (=> (>= ?t15 0) (>= (* interleave ?t15) 0))) (=> $t16 (<= (* interleave ?t15) 0)))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 $t18))))))))
(assert
 (let ((?t19 (* q!31 interleave)))
 (let ((?t20 (* rank interleave)))
 (let ((?t4 (- ctx (* (* q!29 interleave) dcp))))
 (let ((?t21 (- ?t4 ?t20)))
 (let ((?t22 (ite (>= ?t21 0) ?t21 0)))
 (let ((?t23 (* q!29 interleave)))
 (let ((?t24 (+ ?t23 (ite (>= ?t22 interleave) interleave ?t22))))
 (let (($t7 (= ?t4 0)))
 (let (($t25 (and (and (<= ?t23 ?t24) (<= ?t24 ?t19)) (=> $t7 (and (= ?t24 ?t23) (= ?t24 ?t19))))))
 (not $t25)))))))))))
(check-sat)
