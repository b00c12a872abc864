; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 45 'end-share': b*I <= dcp_local_len(e) <= padded_local_rows(e), equal when rem = 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rank rows span_len split_div_align start sum_rank
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!37 () Int)
(declare-fun q!39 () Int)
(declare-fun rank () Int)
(declare-fun span_len () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (* interleave dcp)))
 (let ((?t3 (- ?t2 1)))
 (let ((?t4 (+ start span_len)))
 (let ((?t5 (- ?t4 (* (* q!37 interleave) dcp))))
 (and (>= ?t5 0) (<= ?t5 ?t3)))))))
(assert
 (let ((?t4 (+ start span_len)))
 (let ((?t5 (- ?t4 (* (* q!37 interleave) dcp))))
 (and (=> (= ?t5 0) (= q!39 q!37)) (=> (>= ?t5 1) (= q!39 (+ q!37 1)))))))
(assert
 (let (($t6 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t6)))
(assert
 (let (($t7 (and (=> (>= rank 1) (>= (* interleave rank) interleave)) (=> (<= rank (- 1)) (<= (* interleave rank) (- interleave))))))
 (let (($t8 (and (and $t7 (=> (>= rank 0) (>= (* interleave rank) 0))) (=> (<= rank 0) (<= (* interleave rank) 0)))))
 (let (($t6 (>= interleave 1)))
 (=> $t6 $t8)))))
(assert
 (let ((?t9 (- q!39 q!37)))
 (let (($t10 (<= ?t9 0)))
 (let (($t11 (and (=> (>= ?t9 1) (>= (* interleave ?t9) interleave)) (=> (<= ?t9 (- 1)) (<= (* interleave ?t9) (- interleave))))))
 (let (($t12 (and (and $t11 (=> (>= ?t9 0) (>= (* interleave ?t9) 0))) (=> $t10 (<= (* interleave ?t9) 0)))))
 (let (($t6 (>= interleave 1)))
 (=> $t6 $t12)))))))
(assert
 (let ((?t9 (- q!39 q!37)))
 (let ((?t13 (- ?t9 1)))
 (let (($t14 (<= ?t13 0)))
 (let (($t15 (and (=> (>= ?t13 1) (>= (* interleave ?t13) interleave)) (=> (<= ?t13 (- 1)) (<= (* interleave ?t13) (- interleave))))))
 (let (($t16 (and (and $t15 (=> (>= ?t13 0) (>= (* interleave ?t13) 0))) (=> $t14 (<= (* interleave ?t13) 0)))))
 (let (($t6 (>= interleave 1)))
 (=> $t6 $t16))))))))
(assert
 (let ((?t17 (* q!39 interleave)))
 (let ((?t18 (* rank interleave)))
 (let ((?t4 (+ start span_len)))
 (let ((?t5 (- ?t4 (* (* q!37 interleave) dcp))))
 (let ((?t19 (- ?t5 ?t18)))
 (let ((?t20 (ite (>= ?t19 0) ?t19 0)))
 (let ((?t21 (* q!37 interleave)))
 (let ((?t22 (+ ?t21 (ite (>= ?t20 interleave) interleave ?t20))))
 (let (($t23 (= ?t5 0)))
 (let (($t24 (and (and (<= ?t21 ?t22) (<= ?t22 ?t17)) (=> $t23 (and (= ?t22 ?t21) (= ?t22 ?t17))))))
 (not $t24))))))))))))
(check-sat)
