; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 10 'start-div-I': floordiv(I*(W*Tq), I) = W*Tq
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
(declare-fun r!24 () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= ?t1 0)))
 (and (= start (* (* interleave dcp) ?t1)) $t2))))
(assert
 (let (($t3 (>= r!24 0)))
 (let (($t4 (and (and (= start (+ (* interleave q!23) r!24)) $t3) (< r!24 interleave))))
 (let (($t5 (> interleave 0)))
 (=> $t5 $t4)))))
(assert
 (let (($t6 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t6)))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let ((?t7 (* dcp ?t1)))
 (let ((?t8 (- ?t7 q!23)))
 (let ((?t9 (* interleave ?t8)))
 (let (($t10 (and (=> (>= ?t8 1) (>= ?t9 interleave)) (=> (<= ?t8 (- 1)) (<= ?t9 (- interleave))))))
 (let (($t11 (and (and $t10 (=> (>= ?t8 0) (>= ?t9 0))) (=> (<= ?t8 0) (<= ?t9 0)))))
 (let (($t6 (>= interleave 1)))
 (=> $t6 $t11)))))))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let ((?t7 (* dcp ?t1)))
 (let (($t12 (= q!23 ?t7)))
 (not $t12)))))
(check-sat)
