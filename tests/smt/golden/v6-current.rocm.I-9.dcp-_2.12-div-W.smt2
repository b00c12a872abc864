; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 12 'div-W': floordiv(W*Tq, W) = Tq
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!23 () Int)
(declare-fun q!25 () Int)
(declare-fun r!26 () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let ((?t2 (* dcp ?t1)))
 (= q!23 ?t2))))
(assert
 (let (($t3 (and (and (= q!23 (+ (* dcp q!25) r!26)) (>= r!26 0)) (< r!26 dcp))))
 (let (($t4 (> dcp 0)))
 (=> $t4 $t3))))
(assert
 (let (($t5 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t5)))
(assert
 (let (($t6 (=> (<= (- (* lcm_y!2 start_div_align) q!25) 0) (<= (* dcp (- (* lcm_y!2 start_div_align) q!25)) 0))))
 (let (($t7 (=> (>= (- (* lcm_y!2 start_div_align) q!25) 0) (>= (* dcp (- (* lcm_y!2 start_div_align) q!25)) 0))))
 (let (($t8 (=> (<= (- (* lcm_y!2 start_div_align) q!25) (- 1)) (<= (* dcp (- (* lcm_y!2 start_div_align) q!25)) (- dcp)))))
 (let (($t9 (=> (>= (- (* lcm_y!2 start_div_align) q!25) 1) (>= (* dcp (- (* lcm_y!2 start_div_align) q!25)) dcp))))
 (let (($t10 (>= dcp 1)))
 (=> $t10 (and (and (and $t9 $t8) $t7) $t6))))))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t11 (= q!25 ?t1)))
 (not $t11))))
(check-sat)
