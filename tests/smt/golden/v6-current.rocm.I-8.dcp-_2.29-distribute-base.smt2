; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 29 'distribute-base': (n+1)*(b*I) = n*(b*I) + b*I
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rank rows span_len split_div_align start sum_rank
; 
(set-info :status unknown)
(declare-fun interleave () Int)
(declare-fun q!29 () Int)
(declare-fun sum_rank () Int)
(assert
 (let ((?t1 (* q!29 interleave)))
 (let ((?t2 (+ sum_rank 1)))
 (let ((?t3 (* ?t2 ?t1)))
 (let (($t4 (= ?t3 (+ (* sum_rank ?t1) ?t1))))
 (not $t4))))))
(check-sat)
