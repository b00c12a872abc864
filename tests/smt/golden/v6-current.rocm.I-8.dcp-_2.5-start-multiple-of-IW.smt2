; chunkproof prove: v6-current / rocm / I-8 (local context lengths come from ctx and padded local lengths cover each rank's share)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 5 'start-multiple-of-IW': start = align*ks and align = (I*W)*m, so start = (I*W)*Tq, Tq >= 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rank rows span_len split_div_align start sum_rank
; 
(set-info :status unknown)
(declare-fun block () Int)
(declare-fun ctx () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_x!1 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= start_div_align 0)))
 (and (and $t1 (= start (* lcm!0 start_div_align))) (< start ctx))))
(assert
 (let (($t2 (>= lcm_y!2 1)))
 (let (($t3 (and (and (and (>= lcm!0 1) (>= lcm_x!1 1)) $t2) (= lcm!0 (* block lcm_x!1)))))
 (and (and $t3 (= lcm!0 (* (* interleave dcp) lcm_y!2))) (<= lcm!0 (* block (* interleave dcp)))))))
(assert
 (let ((?t4 (* lcm_y!2 start_div_align)))
 (let (($t5 (<= ?t4 0)))
 (let (($t6 (<= start_div_align 0)))
 (let (($t7 (and (=> (>= start_div_align 1) (>= ?t4 lcm_y!2)) (=> (<= start_div_align (- 1)) (<= ?t4 (- lcm_y!2))))))
 (let (($t8 (and (and $t7 (=> (>= start_div_align 0) (>= ?t4 0))) (=> $t6 $t5))))
 (let (($t2 (>= lcm_y!2 1)))
 (=> $t2 $t8))))))))
(assert
 (let ((?t4 (* lcm_y!2 start_div_align)))
 (let (($t9 (>= ?t4 0)))
 (let (($t10 (and (= start (* (* interleave dcp) ?t4)) $t9)))
 (not $t10)))))
(check-sat)
