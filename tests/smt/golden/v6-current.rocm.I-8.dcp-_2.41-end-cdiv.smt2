; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 41 'end-cdiv': cdiv(e, I*W) = b if rem = 0, else b + 1
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
(declare-fun r!40 () Int)
(declare-fun span_len () Int)
(declare-fun start () Int)
(assert
 (let ((?t1 (* interleave dcp)))
 (let ((?t2 (- ?t1 1)))
 (let ((?t3 (+ start span_len)))
 (let ((?t4 (- ?t3 (* (* q!37 interleave) dcp))))
 (and (>= ?t4 0) (<= ?t4 ?t2)))))))
(assert
 (let (($t5 (>= r!40 0)))
 (let (($t6 (= (- (+ (+ start span_len) (* interleave dcp)) 1) (+ (* (* interleave dcp) q!39) r!40))))
 (let ((?t1 (* interleave dcp)))
 (let (($t7 (> ?t1 0)))
 (=> $t7 (and (and $t6 $t5) (< r!40 ?t1))))))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let ((?t9 (- q!39 q!37)))
 (let (($t10 (<= ?t9 0)))
 (let (($t11 (<= ?t9 (- 1))))
 (let (($t12 (=> $t11 (<= (* (* interleave dcp) ?t9) (- (* interleave dcp))))))
 (let (($t13 (>= ?t9 1)))
 (let (($t14 (and (=> $t13 (>= (* (* interleave dcp) ?t9) (* interleave dcp))) $t12)))
 (let (($t15 (and $t14 (=> (>= ?t9 0) (>= (* (* interleave dcp) ?t9) 0)))))
 (let ((?t1 (* interleave dcp)))
 (let (($t16 (>= ?t1 1)))
 (=> $t16 (and $t15 (=> $t10 (<= (* ?t1 ?t9) 0))))))))))))))
(assert
 (let ((?t9 (- q!39 q!37)))
 (let ((?t17 (- ?t9 1)))
 (let (($t18 (<= ?t17 0)))
 (let (($t19 (<= ?t17 (- 1))))
 (let (($t20 (=> $t19 (<= (* (* interleave dcp) ?t17) (- (* interleave dcp))))))
 (let (($t21 (>= ?t17 1)))
 (let (($t22 (and (=> $t21 (>= (* (* interleave dcp) ?t17) (* interleave dcp))) $t20)))
 (let (($t23 (and $t22 (=> (>= ?t17 0) (>= (* (* interleave dcp) ?t17) 0)))))
 (let ((?t1 (* interleave dcp)))
 (let (($t16 (>= ?t1 1)))
 (=> $t16 (and $t23 (=> $t18 (<= (* ?t1 ?t17) 0)))))))))))))))
(assert
 (let (($t24 (=> (<= (- (- q!39 q!37) 2) 0) (<= (* (* interleave dcp) (- (- q!39 q!37) 2)) 0))))
 (let (($t25 (=> (>= (- (- q!39 q!37) 2) 0) (>= (* (* interleave dcp) (- (- q!39 q!37) 2)) 0))))
 (let ((?t1 (* interleave dcp)))
 (let ((?t26 (- ?t1)))
 (let ((?t9 (- q!39 q!37)))
 (let ((?t27 (- ?t9 2)))
 (let ((?t28 (* ?t1 ?t27)))
 (let (($t29 (and (=> (>= ?t27 1) (>= ?t28 ?t1)) (=> (<= ?t27 (- 1)) (<= ?t28 ?t26)))))
 (let (($t16 (>= ?t1 1)))
 (=> $t16 (and (and $t29 $t25) $t24))))))))))))
(assert
 (let ((?t3 (+ start span_len)))
 (let ((?t4 (- ?t3 (* (* q!37 interleave) dcp))))
 (let (($t30 (and (=> (= ?t4 0) (= q!39 q!37)) (=> (>= ?t4 1) (= q!39 (+ q!37 1))))))
 (not $t30)))))
(check-sat)
