; chunkproof prove: v5-packed / rocm / I-4 (per chunk, the sum of span lengths is <= S)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 10 'len-le-W-need-split': same for the split piece
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block chunk_tokens ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!17 () Int)
(declare-fun q!9 () Int)
(declare-fun r!18 () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= ?t1 0)))
 (and (= start (* (* interleave dcp) ?t1)) $t2))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (= q!9 ?t1)))
(assert
 (let (($t3 (>= r!18 0)))
 (let ((?t4 (- (+ (+ start (* split_div_align lcm!0)) (* interleave dcp)) 1)))
 (let (($t5 (and (and (= ?t4 (+ (* (* interleave dcp) q!17) r!18)) $t3) (< r!18 (* interleave dcp)))))
 (let ((?t6 (* interleave dcp)))
 (let (($t7 (> ?t6 0)))
 (=> $t7 $t5)))))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let ((?t9 (* q!9 interleave)))
 (let ((?t10 (- (* q!17 interleave) ?t9)))
 (let ((?t11 (* dcp ?t10)))
 (let ((?t12 (* split_div_align lcm!0)))
 (let (($t13 (<= ?t12 ?t11)))
 (not $t13)))))))
(check-sat)
