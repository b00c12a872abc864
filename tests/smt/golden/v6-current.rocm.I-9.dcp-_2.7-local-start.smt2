; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 7 'local-start': cdiv((I*W)*Tq, I*W) = Tq, so padded_local_rows(start) = Tq*I
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
(declare-fun q!9 () Int)
(declare-fun r!10 () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= ?t1 0)))
 (and (= start (* (* interleave dcp) ?t1)) $t2))))
(assert
 (let (($t3 (>= r!10 0)))
 (let (($t4 (= (- (+ start (* interleave dcp)) 1) (+ (* (* interleave dcp) q!9) r!10))))
 (let ((?t5 (* interleave dcp)))
 (let (($t6 (> ?t5 0)))
 (=> $t6 (and (and $t4 $t3) (< r!10 ?t5))))))))
(assert
 (let (($t7 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t7)))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let ((?t8 (- ?t1 q!9)))
 (let ((?t5 (* interleave dcp)))
 (let ((?t9 (* ?t5 ?t8)))
 (let (($t10 (and (=> (>= ?t8 1) (>= ?t9 ?t5)) (=> (<= ?t8 (- 1)) (<= ?t9 (- ?t5))))))
 (let (($t11 (and (and $t10 (=> (>= ?t8 0) (>= ?t9 0))) (=> (<= ?t8 0) (<= ?t9 0)))))
 (let (($t12 (>= ?t5 1)))
 (=> $t12 $t11)))))))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t13 (= q!9 ?t1)))
 (not $t13))))
(check-sat)
