; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 44 'split-share': b*I <= dcp_local_len(e) <= padded_local_rows(e), equal when rem = 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun q!17 () Int)
(declare-fun q!35 () Int)
(declare-fun rank () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (* interleave dcp)))
 (let ((?t3 (- ?t2 1)))
 (let ((?t4 (* split_div_align lcm!0)))
 (let ((?t5 (+ start ?t4)))
 (let ((?t6 (- ?t5 (* (* q!35 interleave) dcp))))
 (and (>= ?t6 0) (<= ?t6 ?t3))))))))
(assert
 (let ((?t4 (* split_div_align lcm!0)))
 (let ((?t5 (+ start ?t4)))
 (let ((?t6 (- ?t5 (* (* q!35 interleave) dcp))))
 (and (=> (= ?t6 0) (= q!17 q!35)) (=> (>= ?t6 1) (= q!17 (+ q!35 1))))))))
(assert
 (let (($t7 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t7)))
(assert
 (let (($t8 (and (=> (>= rank 1) (>= (* interleave rank) interleave)) (=> (<= rank (- 1)) (<= (* interleave rank) (- interleave))))))
 (let (($t9 (and (and $t8 (=> (>= rank 0) (>= (* interleave rank) 0))) (=> (<= rank 0) (<= (* interleave rank) 0)))))
 (let (($t7 (>= interleave 1)))
 (=> $t7 $t9)))))
(assert
 (let ((?t10 (- q!17 q!35)))
 (let (($t11 (<= ?t10 0)))
 (let (($t12 (and (=> (>= ?t10 1) (>= (* interleave ?t10) interleave)) (=> (<= ?t10 (- 1)) (<= (* interleave ?t10) (- interleave))))))
 (let (($t13 (and (and $t12 (=> (>= ?t10 0) (>= (* interleave ?t10) 0))) (=> $t11 (<= (* interleave ?t10) 0)))))
 (let (($t7 (>= interleave 1)))
 (=> $t7 $t13)))))))
(assert
 (let ((?t10 (- q!17 q!35)))
 (let ((?t14 (- ?t10 1)))
 (let (($t15 (<= ?t14 0)))
 (let (($t16 (and (=> (>= ?t14 1) (>= (* interleave ?t14) interleave)) (=> (<= ?t14 (- 1)) (<= (* interleave ?t14) (- interleave))))))
 (let (($t17 (and (and $t16 (=> (>= ?t14 0) (>= (* interleave ?t14) 0))) (=> $t15 (<= (* interleave ?t14) 0)))))
 (let (($t7 (>= interleave 1)))
 (=> $t7 $t17))))))))
(assert
 (let ((?t18 (* q!17 interleave)))
 (let ((?t19 (* rank interleave)))
 (let ((?t4 (* split_div_align lcm!0)))
 (let ((?t5 (+ start ?t4)))
 (let ((?t6 (- ?t5 (* (* q!35 interleave) dcp))))
 (let ((?t20 (- ?t6 ?t19)))
 (let ((?t21 (ite (>= ?t20 0) ?t20 0)))
 (let ((?t22 (* q!35 interleave)))
 (let ((?t23 (+ ?t22 (ite (>= ?t21 interleave) interleave ?t21))))
 (let (($t24 (= ?t6 0)))
 (let (($t25 (and (and (<= ?t22 ?t23) (<= ?t23 ?t18)) (=> $t24 (and (= ?t23 ?t22) (= ?t23 ?t18))))))
 (not $t25)))))))))))))
(check-sat)
