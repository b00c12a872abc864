; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 36 'split-rem-range': e = I*a + r1, a = W*b + r2: rem = I*r2 + r1 in [0, I*W - 1]
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
(declare-fun q!33 () Int)
(declare-fun q!35 () Int)
(declare-fun r!34 () Int)
(declare-fun r!36 () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (>= r!34 0)))
 (let ((?t2 (* split_div_align lcm!0)))
 (let ((?t3 (+ start ?t2)))
 (let (($t4 (and (and (= ?t3 (+ (* interleave q!33) r!34)) $t1) (< r!34 interleave))))
 (let (($t5 (> interleave 0)))
 (=> $t5 $t4)))))))
(assert
 (let (($t6 (and (and (= q!33 (+ (* dcp q!35) r!36)) (>= r!36 0)) (< r!36 dcp))))
 (let (($t7 (> dcp 0)))
 (=> $t7 $t6))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let (($t9 (=> (<= (- q!33 (* dcp q!35)) 0) (<= (* interleave (- q!33 (* dcp q!35))) 0))))
 (let (($t10 (=> (>= (- q!33 (* dcp q!35)) 0) (>= (* interleave (- q!33 (* dcp q!35))) 0))))
 (let (($t11 (=> (<= (- q!33 (* dcp q!35)) (- 1)) (<= (* interleave (- q!33 (* dcp q!35))) (- interleave)))))
 (let (($t12 (=> (>= (- q!33 (* dcp q!35)) 1) (>= (* interleave (- q!33 (* dcp q!35))) interleave))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 (and (and (and $t12 $t11) $t10) $t9))))))))
(assert
 (let ((?t13 (- (- (+ (* dcp q!35) dcp) 1) q!33)))
 (let ((?t14 (* interleave ?t13)))
 (let (($t15 (and (=> (>= ?t13 1) (>= ?t14 interleave)) (=> (<= ?t13 (- 1)) (<= ?t14 (- interleave))))))
 (let (($t16 (and (and $t15 (=> (>= ?t13 0) (>= ?t14 0))) (=> (<= ?t13 0) (<= ?t14 0)))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 $t16)))))))
(assert
 (let ((?t17 (* interleave dcp)))
 (let ((?t18 (- ?t17 1)))
 (let ((?t2 (* split_div_align lcm!0)))
 (let ((?t3 (+ start ?t2)))
 (let ((?t19 (- ?t3 (* (* q!35 interleave) dcp))))
 (let (($t20 (and (>= ?t19 0) (<= ?t19 ?t18))))
 (not $t20))))))))
(check-sat)
