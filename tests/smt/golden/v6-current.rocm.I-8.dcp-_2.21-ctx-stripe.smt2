; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 21 'ctx-stripe': rem = I*q + s, 0 <= s <= I-1, and 0 <= rem <= I*W - 1 give 0 <= q <= W - 1
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rank rows span_len split_div_align start sum_rank
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!29 () Int)
(declare-fun q!33 () Int)
(declare-fun r!34 () Int)
(assert
 (let ((?t1 (* interleave dcp)))
 (let ((?t2 (- ?t1 1)))
 (let ((?t3 (- ctx (* (* q!29 interleave) dcp))))
 (and (>= ?t3 0) (<= ?t3 ?t2))))))
(assert
 (let (($t4 (>= r!34 0)))
 (let ((?t3 (- ctx (* (* q!29 interleave) dcp))))
 (let (($t5 (and (and (= ?t3 (+ (* interleave q!33) r!34)) $t4) (< r!34 interleave))))
 (let (($t6 (> interleave 0)))
 (=> $t6 $t5))))))
(assert
 (let (($t7 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t7)))
(assert
 (let (($t8 (and (=> (>= q!33 1) (>= (* interleave q!33) interleave)) (=> (<= q!33 (- 1)) (<= (* interleave q!33) (- interleave))))))
 (let (($t9 (and (and $t8 (=> (>= q!33 0) (>= (* interleave q!33) 0))) (=> (<= q!33 0) (<= (* interleave q!33) 0)))))
 (let (($t7 (>= interleave 1)))
 (=> $t7 $t9)))))
(assert
 (let (($t10 (=> (<= (- q!33 dcp) 0) (<= (* interleave (- q!33 dcp)) 0))))
 (let (($t11 (=> (>= (- q!33 dcp) 0) (>= (* interleave (- q!33 dcp)) 0))))
 (let (($t12 (=> (<= (- q!33 dcp) (- 1)) (<= (* interleave (- q!33 dcp)) (- interleave)))))
 (let (($t13 (=> (>= (- q!33 dcp) 1) (>= (* interleave (- q!33 dcp)) interleave))))
 (let (($t7 (>= interleave 1)))
 (=> $t7 (and (and (and $t13 $t12) $t11) $t10))))))))
(assert
 (let (($t14 (=> (<= (+ q!33 1) 0) (<= (* interleave (+ q!33 1)) 0))))
 (let (($t15 (=> (>= (+ q!33 1) 0) (>= (* interleave (+ q!33 1)) 0))))
 (let (($t16 (=> (<= (+ q!33 1) (- 1)) (<= (* interleave (+ q!33 1)) (- interleave)))))
 (let (($t17 (=> (>= (+ q!33 1) 1) (>= (* interleave (+ q!33 1)) interleave))))
 (let (($t7 (>= interleave 1)))
 (=> $t7 (and (and (and $t17 $t16) $t15) $t14))))))))
(assert
 (let ((?t18 (* q!33 interleave)))
 (let ((?t3 (- ctx (* (* q!29 interleave) dcp))))
 (let ((?t19 (- ?t3 ?t18)))
 (let (($t20 (and (and (>= q!33 0) (<= q!33 (- dcp 1))) (>= ?t19 0))))
 (let (($t21 (and $t20 (<= ?t19 (- interleave 1)))))
 (not $t21)))))))
(check-sat)
