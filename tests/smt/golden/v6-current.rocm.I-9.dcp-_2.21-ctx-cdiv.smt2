; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 21 'ctx-cdiv': cdiv(e, I*W) = b if rem = 0, else b + 1
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
(declare-fun r!32 () Int)
(assert
 (let ((?t1 (* interleave dcp)))
 (let ((?t2 (- ?t1 1)))
 (let ((?t3 (- ctx (* (* q!29 interleave) dcp))))
 (and (>= ?t3 0) (<= ?t3 ?t2))))))
(assert
 (let (($t4 (>= r!32 0)))
 (let (($t5 (= (- (+ ctx (* interleave dcp)) 1) (+ (* (* interleave dcp) q!31) r!32))))
 (let ((?t1 (* interleave dcp)))
 (let (($t6 (> ?t1 0)))
 (=> $t6 (and (and $t5 $t4) (< r!32 ?t1))))))))
(assert
 (let (($t7 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t7)))
(assert
 (let ((?t8 (- q!31 q!29)))
 (let (($t9 (<= ?t8 0)))
 (let (($t10 (<= ?t8 (- 1))))
 (let (($t11 (=> $t10 (<= (* (* interleave dcp) ?t8) (- (* interleave dcp))))))
 (let (($t12 (>= ?t8 1)))
 (let (($t13 (and (=> $t12 (>= (* (* interleave dcp) ?t8) (* interleave dcp))) $t11)))
 (let (($t14 (and $t13 (=> (>= ?t8 0) (>= (* (* interleave dcp) ?t8) 0)))))
 (let ((?t1 (* interleave dcp)))
 (let (($t15 (>= ?t1 1)))
 (=> $t15 (and $t14 (=> $t9 (<= (* ?t1 ?t8) 0))))))))))))))
(assert
 (let ((?t8 (- q!31 q!29)))
 (let ((?t16 (- ?t8 1)))
 (let (($t17 (<= ?t16 0)))
 (let (($t18 (<= ?t16 (- 1))))
 (let (($t19 (=> $t18 (<= (* (* interleave dcp) ?t16) (- (* interleave dcp))))))
 (let (($t20 (>= ?t16 1)))
 (let (($t21 (and (=> $t20 (>= (* (* interleave dcp) ?t16) (* interleave dcp))) $t19)))
 (let (($t22 (and $t21 (=> (>= ?t16 0) (>= (* (* interleave dcp) ?t16) 0)))))
 (let ((?t1 (* interleave dcp)))
 (let (($t15 (>= ?t1 1)))
 (=> $t15 (and $t22 (=> $t17 (<= (* ?t1 ?t16) 0)))))))))))))))
(assert
 (let (($t23 (=> (<= (- (- q!31 q!29) 2) 0) (<= (* (* interleave dcp) (- (- q!31 q!29) 2)) 0))))
 (let (($t24 (=> (>= (- (- q!31 q!29) 2) 0) (>= (* (* interleave dcp) (- (- q!31 q!29) 2)) 0))))
 (let ((?t1 (* interleave dcp)))
 (let ((?t25 (- ?t1)))
 (let ((?t8 (- q!31 q!29)))
 (let ((?t26 (- ?t8 2)))
 (let ((?t27 (* ?t1 ?t26)))
 (let (($t28 (and (=> (>= ?t26 1) (>= ?t27 ?t1)) (=> (<= ?t26 (- 1)) (<= ?t27 ?t25)))))
 (let (($t15 (>= ?t1 1)))
 (=> $t15 (and (and $t28 $t24) $t23))))))))))))
(assert
 (let (($t29 (=> (>= (- ctx (* (* q!29 interleave) dcp)) 1) (= q!31 (+ q!29 1)))))
 (let (($t30 (= q!31 q!29)))
 (let ((?t3 (- ctx (* (* q!29 interleave) dcp))))
 (let (($t31 (= ?t3 0)))
 (let (($t32 (and (=> $t31 $t30) $t29)))
 (not $t32)))))))
(check-sat)
