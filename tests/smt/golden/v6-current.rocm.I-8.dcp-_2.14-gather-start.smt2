; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 14 'gather-start': dcp_local_len(start) = Tq*I = local_start for every rank
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rank rows span_len split_div_align start sum_rank
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!23 () Int)
(declare-fun q!25 () Int)
(declare-fun q!9 () Int)
(declare-fun rank () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= rank 0)))
 (and $t1 (< rank dcp))))
(assert
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (let (($t3 (>= ?t2 0)))
 (and (= start (* (* interleave dcp) ?t2)) $t3))))
(assert
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (let ((?t4 (* dcp ?t2)))
 (= q!23 ?t4))))
(assert
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (= q!25 ?t2)))
(assert
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (= q!9 ?t2)))
(assert
 (let (($t5 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t5)))
(assert
 (let (($t6 (and (=> (>= rank 1) (>= (* interleave rank) interleave)) (=> (<= rank (- 1)) (<= (* interleave rank) (- interleave))))))
 (let (($t7 (and (and $t6 (=> (>= rank 0) (>= (* interleave rank) 0))) (=> (<= rank 0) (<= (* interleave rank) 0)))))
 (let (($t5 (>= interleave 1)))
 (=> $t5 $t7)))))
(assert
 (let ((?t8 (* q!9 interleave)))
 (let ((?t9 (* rank interleave)))
 (let ((?t10 (- (- start (* (* q!25 interleave) dcp)) ?t9)))
 (let ((?t11 (ite (>= ?t10 0) ?t10 0)))
 (let ((?t12 (* q!25 interleave)))
 (let ((?t13 (+ ?t12 (ite (>= ?t11 interleave) interleave ?t11))))
 (let (($t14 (= ?t13 ?t8)))
 (not $t14)))))))))
(check-sat)
