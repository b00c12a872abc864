; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 95 'gp-div-I': g = I*(W*cL + r) + d, 0 <= d < I: floordiv(g, I) = W*cL + r, floormod(g, I) = d
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!45 () Int)
(declare-fun q!47 () Int)
(declare-fun r!48 () Int)
(declare-fun rank () Int)
(declare-fun slot () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (- interleave 1)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let (($t5 (<= ?t4 ?t2)))
 (and (and (= slot (+ ?t3 ?t4)) (>= ?t4 0)) $t5))))))
(assert
 (let (($t6 (>= r!48 0)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t7 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let (($t8 (and (and (= ?t7 (+ (* interleave q!47) r!48)) $t6) (< r!48 interleave))))
 (let (($t9 (> interleave 0)))
 (=> $t9 $t8))))))))
(assert
 (let (($t10 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t10)))
(assert
 (let (($t11 (=> (<= (- (- q!47 (* dcp q!45)) rank) 0) (<= (* interleave (- (- q!47 (* dcp q!45)) rank)) 0))))
 (let (($t12 (=> (>= (- (- q!47 (* dcp q!45)) rank) 0) (>= (* interleave (- (- q!47 (* dcp q!45)) rank)) 0))))
 (let ((?t13 (- interleave)))
 (let ((?t14 (- (- q!47 (* dcp q!45)) rank)))
 (let ((?t15 (* interleave ?t14)))
 (let (($t16 (and (=> (>= ?t14 1) (>= ?t15 interleave)) (=> (<= ?t14 (- 1)) (<= ?t15 ?t13)))))
 (let (($t10 (>= interleave 1)))
 (=> $t10 (and (and $t16 $t12) $t11))))))))))
(assert
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t7 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t17 (- ?t7 (* q!47 interleave))))
 (let (($t18 (and (= q!47 (+ (* dcp q!45) rank)) (= ?t17 ?t4))))
 (not $t18)))))))
(check-sat)
