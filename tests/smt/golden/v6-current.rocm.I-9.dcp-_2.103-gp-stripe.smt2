; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 103 'gp-stripe': g = (I*W)*cL + I*r + d, local_index(g) = cL*I + d
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
(declare-fun q!51 () Int)
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
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t6 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t7 (- ?t6 (* q!47 interleave))))
 (let ((?t8 (+ (* q!51 interleave) ?t7)))
 (let (($t9 (= ?t8 slot)))
 (let (($t10 (= q!51 q!45)))
 (and $t10 $t9)))))))))
(assert
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t11 (+ ?t3 ?t4)))
 (let ((?t6 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t7 (- ?t6 (* q!47 interleave))))
 (let ((?t8 (+ (* q!51 interleave) ?t7)))
 (let ((?t12 (+ (+ (* (* interleave dcp) q!45) (* interleave rank)) ?t4)))
 (let (($t13 (and (= ?t6 ?t12) (= ?t8 ?t11))))
 (not $t13))))))))))
(check-sat)
