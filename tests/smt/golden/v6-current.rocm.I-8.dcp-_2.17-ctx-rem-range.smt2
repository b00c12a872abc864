; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 17 'ctx-rem-range': e = I*a + r1, a = W*b + r2: rem = I*r2 + r1 in [0, I*W - 1]
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
(declare-fun q!27 () Int)
(declare-fun q!29 () Int)
(declare-fun r!28 () Int)
(declare-fun r!30 () Int)
(assert
 (let (($t1 (and (and (= ctx (+ (* interleave q!27) r!28)) (>= r!28 0)) (< r!28 interleave))))
 (let (($t2 (> interleave 0)))
 (=> $t2 $t1))))
(assert
 (let (($t3 (and (and (= q!27 (+ (* dcp q!29) r!30)) (>= r!30 0)) (< r!30 dcp))))
 (let (($t4 (> dcp 0)))
 (=> $t4 $t3))))
(assert
 (let (($t5 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t5)))
(assert
 (let (($t6 (=> (<= (- q!27 (* dcp q!29)) 0) (<= (* interleave (- q!27 (* dcp q!29))) 0))))
 (let (($t7 (=> (>= (- q!27 (* dcp q!29)) 0) (>= (* interleave (- q!27 (* dcp q!29))) 0))))
 (let (($t8 (=> (<= (- q!27 (* dcp q!29)) (- 1)) (<= (* interleave (- q!27 (* dcp q!29))) (- interleave)))))
 (let (($t9 (=> (>= (- q!27 (* dcp q!29)) 1) (>= (* interleave (- q!27 (* dcp q!29))) interleave))))
 (let (($t5 (>= interleave 1)))
 (=> $t5 (and (and (and $t9 $t8) $t7) $t6))))))))
(assert
 (let ((?t10 (- (- (+ (* dcp q!29) dcp) 1) q!27)))
 (let ((?t11 (* interleave ?t10)))
 (let (($t12 (and (=> (>= ?t10 1) (>= ?t11 interleave)) (=> (<= ?t10 (- 1)) (<= ?t11 (- interleave))))))
 (let (($t13 (and (and $t12 (=> (>= ?t10 0) (>= ?t11 0))) (=> (<= ?t10 0) (<= ?t11 0)))))
 (let (($t5 (>= interleave 1)))
 (=> $t5 $t13)))))))
(assert
 (let ((?t14 (* interleave dcp)))
 (let ((?t15 (- ?t14 1)))
 (let ((?t16 (- ctx (* (* q!29 interleave) dcp))))
 (let (($t17 (and (>= ?t16 0) (<= ?t16 ?t15))))
 (not $t17))))))
(check-sat)
