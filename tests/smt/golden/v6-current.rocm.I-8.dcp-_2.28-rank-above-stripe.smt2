; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 28 'rank-above-stripe': n > q: rem - n*I <= s - I < 0, rank n owns b*I
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
(declare-fun q!29 () Int)
(declare-fun q!33 () Int)
(declare-fun sum_rank () Int)
(assert
 (let ((?t1 (* q!33 interleave)))
 (let ((?t2 (- ctx (* (* q!29 interleave) dcp))))
 (let ((?t3 (- ?t2 ?t1)))
 (let (($t4 (and (and (>= q!33 0) (<= q!33 (- dcp 1))) (>= ?t3 0))))
 (and $t4 (<= ?t3 (- interleave 1))))))))
(assert
 (let (($t5 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t5)))
(assert
 (let (($t6 (=> (<= (- (- sum_rank q!33) 1) 0) (<= (* interleave (- (- sum_rank q!33) 1)) 0))))
 (let (($t7 (=> (>= (- (- sum_rank q!33) 1) 0) (>= (* interleave (- (- sum_rank q!33) 1)) 0))))
 (let (($t8 (=> (<= (- (- sum_rank q!33) 1) (- 1)) (<= (* interleave (- (- sum_rank q!33) 1)) (- interleave)))))
 (let (($t9 (=> (>= (- (- sum_rank q!33) 1) 1) (>= (* interleave (- (- sum_rank q!33) 1)) interleave))))
 (let (($t5 (>= interleave 1)))
 (=> $t5 (and (and (and $t9 $t8) $t7) $t6))))))))
(assert
 (let ((?t10 (* q!29 interleave)))
 (let ((?t11 (* sum_rank interleave)))
 (let ((?t2 (- ctx (* ?t10 dcp))))
 (let ((?t12 (- ?t2 ?t11)))
 (let ((?t13 (ite (>= ?t12 0) ?t12 0)))
 (let ((?t14 (+ ?t10 (ite (>= ?t13 interleave) interleave ?t13))))
 (let (($t15 (=> (>= sum_rank (+ q!33 1)) (= ?t14 ?t10))))
 (not $t15)))))))))
(check-sat)
