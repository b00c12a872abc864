; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 62 'pos-block': 0 <= I*o + u <= I*W - 1: floordiv(p, I*W) = t, local_index(p) = t*I + u
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun position () Int)
(declare-fun q!37 () Int)
(declare-fun q!39 () Int)
(declare-fun q!41 () Int)
(declare-fun r!42 () Int)
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
 (let (($t8 (>= r!42 0)))
 (let (($t9 (and (= position (+ (* (* interleave dcp) q!41) r!42)) $t8)))
 (let ((?t10 (* interleave dcp)))
 (let (($t11 (> ?t10 0)))
 (=> $t11 (and $t9 (< r!42 ?t10))))))))
(assert
 (let (($t12 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t12)))
(assert
 (let (($t13 (=> (<= (- q!37 (* q!39 dcp)) 0) (<= (* interleave (- q!37 (* q!39 dcp))) 0))))
 (let ((?t5 (- q!37 (* q!39 dcp))))
 (let (($t6 (>= ?t5 0)))
 (let (($t14 (and (=> (>= ?t5 1) (>= (* interleave ?t5) interleave)) (=> (<= ?t5 (- 1)) (<= (* interleave ?t5) (- interleave))))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 (and (and $t14 (=> $t6 (>= (* interleave ?t5) 0))) $t13))))))))
(assert
 (let ((?t5 (- q!37 (* q!39 dcp))))
 (let ((?t15 (- dcp 1)))
 (let ((?t16 (- ?t15 ?t5)))
 (let ((?t17 (* interleave ?t16)))
 (let (($t18 (and (=> (>= ?t16 1) (>= ?t17 interleave)) (=> (<= ?t16 (- 1)) (<= ?t17 (- interleave))))))
 (let (($t19 (and (and $t18 (=> (>= ?t16 0) (>= ?t17 0))) (=> (<= ?t16 0) (<= ?t17 0)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 $t19)))))))))
(assert
 (let ((?t20 (- q!41 q!39)))
 (let (($t21 (<= ?t20 0)))
 (let (($t22 (<= ?t20 (- 1))))
 (let (($t23 (=> $t22 (<= (* (* interleave dcp) ?t20) (- (* interleave dcp))))))
 (let (($t24 (>= ?t20 1)))
 (let (($t25 (and (=> $t24 (>= (* (* interleave dcp) ?t20) (* interleave dcp))) $t23)))
 (let (($t26 (and $t25 (=> (>= ?t20 0) (>= (* (* interleave dcp) ?t20) 0)))))
 (let ((?t10 (* interleave dcp)))
 (let (($t27 (>= ?t10 1)))
 (=> $t27 (and $t26 (=> $t21 (<= (* ?t10 ?t20) 0))))))))))))))
(assert
 (let ((?t20 (- q!41 q!39)))
 (let (($t21 (<= ?t20 0)))
 (let (($t28 (and (=> (>= ?t20 1) (>= (* interleave ?t20) interleave)) (=> (<= ?t20 (- 1)) (<= (* interleave ?t20) (- interleave))))))
 (let (($t29 (and (and $t28 (=> (>= ?t20 0) (>= (* interleave ?t20) 0))) (=> $t21 (<= (* interleave ?t20) 0)))))
 (let (($t12 (>= interleave 1)))
 (=> $t12 $t29)))))))
(assert
 (let ((?t2 (- position (* q!37 interleave))))
 (let ((?t30 (+ (* q!41 interleave) ?t2)))
 (let (($t31 (= q!41 q!39)))
 (let (($t32 (and $t31 (= ?t30 (+ (* q!39 interleave) ?t2)))))
 (not $t32))))))
(check-sat)
