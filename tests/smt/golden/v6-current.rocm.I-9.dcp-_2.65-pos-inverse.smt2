; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 65 'pos-inverse': floordiv(t*I + u, I) = t: global_position(local_index(p), owner_rank(p)) = p
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
(declare-fun q!43 () Int)
(declare-fun r!44 () Int)
(assert
 (let ((?t1 (- interleave 1)))
 (let ((?t2 (* q!37 interleave)))
 (let ((?t3 (- position ?t2)))
 (let (($t4 (<= ?t3 ?t1)))
 (let (($t5 (>= ?t3 0)))
 (let ((?t6 (- q!37 (* q!39 dcp))))
 (let (($t7 (>= ?t6 0)))
 (let (($t8 (= position (+ (+ (* (* interleave dcp) q!39) (* interleave ?t6)) ?t3))))
 (and (and (and (and $t8 $t7) (<= ?t6 (- dcp 1))) $t5) $t4))))))))))
(assert
 (let ((?t2 (* q!37 interleave)))
 (let ((?t3 (- position ?t2)))
 (let ((?t9 (+ (* q!41 interleave) ?t3)))
 (let (($t10 (= q!41 q!39)))
 (and $t10 (= ?t9 (+ (* q!39 interleave) ?t3))))))))
(assert
 (let (($t11 (>= r!44 0)))
 (let ((?t2 (* q!37 interleave)))
 (let ((?t3 (- position ?t2)))
 (let ((?t9 (+ (* q!41 interleave) ?t3)))
 (let (($t12 (and (and (= ?t9 (+ (* interleave q!43) r!44)) $t11) (< r!44 interleave))))
 (let (($t13 (> interleave 0)))
 (=> $t13 $t12))))))))
(assert
 (let (($t14 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t14)))
(assert
 (let ((?t15 (- q!43 q!39)))
 (let (($t16 (<= ?t15 0)))
 (let (($t17 (and (=> (>= ?t15 1) (>= (* interleave ?t15) interleave)) (=> (<= ?t15 (- 1)) (<= (* interleave ?t15) (- interleave))))))
 (let (($t18 (and (and $t17 (=> (>= ?t15 0) (>= (* interleave ?t15) 0))) (=> $t16 (<= (* interleave ?t15) 0)))))
 (let (($t14 (>= interleave 1)))
 (=> $t14 $t18)))))))
(assert
 (let ((?t15 (- q!43 q!39)))
 (let (($t16 (<= ?t15 0)))
 (let (($t19 (<= ?t15 (- 1))))
 (let (($t20 (=> $t19 (<= (* (* interleave dcp) ?t15) (- (* interleave dcp))))))
 (let (($t21 (>= ?t15 1)))
 (let (($t22 (and (=> $t21 (>= (* (* interleave dcp) ?t15) (* interleave dcp))) $t20)))
 (let (($t23 (and $t22 (=> (>= ?t15 0) (>= (* (* interleave dcp) ?t15) 0)))))
 (let ((?t24 (* interleave dcp)))
 (let (($t25 (>= ?t24 1)))
 (=> $t25 (and $t23 (=> $t16 (<= (* ?t24 ?t15) 0))))))))))))))
(assert
 (let ((?t2 (* q!37 interleave)))
 (let ((?t3 (- position ?t2)))
 (let ((?t9 (+ (* q!41 interleave) ?t3)))
 (let ((?t6 (- q!37 (* q!39 dcp))))
 (let ((?t26 (* ?t6 interleave)))
 (let ((?t27 (+ (+ (* q!43 (* interleave dcp)) ?t26) (- ?t9 (* q!43 interleave)))))
 (let (($t28 (= ?t27 position)))
 (not $t28)))))))))
(check-sat)
