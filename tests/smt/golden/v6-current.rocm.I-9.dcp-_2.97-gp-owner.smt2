; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 97 'gp-owner': floordiv(W*cL + r, W) = cL: owner_rank(g) = r
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
(declare-fun q!49 () Int)
(declare-fun r!50 () Int)
(declare-fun rank () Int)
(declare-fun slot () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (* q!45 interleave)))
 (let ((?t3 (- slot ?t2)))
 (let ((?t4 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t3)))
 (let ((?t5 (- ?t4 (* q!47 interleave))))
 (and (= q!47 (+ (* dcp q!45) rank)) (= ?t5 ?t3)))))))
(assert
 (let (($t6 (and (and (= q!47 (+ (* dcp q!49) r!50)) (>= r!50 0)) (< r!50 dcp))))
 (let (($t7 (> dcp 0)))
 (=> $t7 $t6))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let (($t9 (=> (<= (- q!49 q!45) 0) (<= (* dcp (- q!49 q!45)) 0))))
 (let (($t10 (=> (>= (- q!49 q!45) 0) (>= (* dcp (- q!49 q!45)) 0))))
 (let (($t11 (=> (<= (- q!49 q!45) (- 1)) (<= (* dcp (- q!49 q!45)) (- dcp)))))
 (let (($t12 (=> (>= (- q!49 q!45) 1) (>= (* dcp (- q!49 q!45)) dcp))))
 (let (($t13 (>= dcp 1)))
 (=> $t13 (and (and (and $t12 $t11) $t10) $t9))))))))
(assert
 (let (($t14 (= (- q!47 (* q!49 dcp)) rank)))
 (let (($t15 (= q!49 q!45)))
 (let (($t16 (and $t15 $t14)))
 (not $t16)))))
(check-sat)
