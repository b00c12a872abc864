; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 37 'end-rem-range': e = I*a + r1, a = W*b + r2: rem = I*r2 + r1 in [0, I*W - 1]
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rank rows span_len split_div_align start sum_rank
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!35 () Int)
(declare-fun q!37 () Int)
(declare-fun r!36 () Int)
(declare-fun r!38 () Int)
(declare-fun span_len () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (>= r!36 0)))
 (let (($t2 (and (= (+ start span_len) (+ (* interleave q!35) r!36)) $t1)))
 (let (($t3 (> interleave 0)))
 (=> $t3 (and $t2 (< r!36 interleave)))))))
(assert
 (let (($t4 (and (and (= q!35 (+ (* dcp q!37) r!38)) (>= r!38 0)) (< r!38 dcp))))
 (let (($t5 (> dcp 0)))
 (=> $t5 $t4))))
(assert
 (let (($t6 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t6)))
(assert
 (let (($t7 (=> (<= (- q!35 (* dcp q!37)) 0) (<= (* interleave (- q!35 (* dcp q!37))) 0))))
 (let (($t8 (=> (>= (- q!35 (* dcp q!37)) 0) (>= (* interleave (- q!35 (* dcp q!37))) 0))))
 (let (($t9 (=> (<= (- q!35 (* dcp q!37)) (- 1)) (<= (* interleave (- q!35 (* dcp q!37))) (- interleave)))))
 (let (($t10 (=> (>= (- q!35 (* dcp q!37)) 1) (>= (* interleave (- q!35 (* dcp q!37))) interleave))))
 (let (($t6 (>= interleave 1)))
 (=> $t6 (and (and (and $t10 $t9) $t8) $t7))))))))
(assert
 (let ((?t11 (- (- (+ (* dcp q!37) dcp) 1) q!35)))
 (let ((?t12 (* interleave ?t11)))
 (let (($t13 (and (=> (>= ?t11 1) (>= ?t12 interleave)) (=> (<= ?t11 (- 1)) (<= ?t12 (- interleave))))))
 (let (($t14 (and (and $t13 (=> (>= ?t11 0) (>= ?t12 0))) (=> (<= ?t11 0) (<= ?t12 0)))))
 (let (($t6 (>= interleave 1)))
 (=> $t6 $t14)))))))
(assert
 (let ((?t15 (* interleave dcp)))
 (let ((?t16 (- ?t15 1)))
 (let ((?t17 (+ start span_len)))
 (let ((?t18 (- ?t17 (* (* q!37 interleave) dcp))))
 (let (($t19 (and (>= ?t18 0) (<= ?t18 ?t16))))
 (not $t19)))))))
(check-sat)
