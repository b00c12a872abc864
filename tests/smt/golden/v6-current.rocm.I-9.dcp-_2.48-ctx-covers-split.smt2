; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 48 'ctx-covers-split': ctx >= start + split + 1 = (I*W)*Ts + 1 gives b_ctx >= Ts
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!29 () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* interleave dcp)))
 (let ((?t2 (- ?t1 1)))
 (let ((?t3 (- ctx (* (* q!29 interleave) dcp))))
 (and (>= ?t3 0) (<= ?t3 ?t2))))))
(assert
 (let ((?t4 (* lcm_y!2 split_div_align)))
 (let ((?t5 (* lcm_y!2 start_div_align)))
 (let ((?t6 (+ ?t5 ?t4)))
 (let (($t7 (>= ?t6 0)))
 (let ((?t8 (* split_div_align lcm!0)))
 (let ((?t9 (+ start ?t8)))
 (and (= ?t9 (* (* interleave dcp) ?t6)) $t7))))))))
(assert
 (and (>= (* split_div_align lcm!0) 0) (<= (* split_div_align lcm!0) (- (- ctx start) 1))))
(assert
 (let (($t10 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t10)))
(assert
 (let ((?t4 (* lcm_y!2 split_div_align)))
 (let ((?t5 (* lcm_y!2 start_div_align)))
 (let ((?t6 (+ ?t5 ?t4)))
 (let ((?t11 (+ (- q!29 ?t6) 1)))
 (let ((?t1 (* interleave dcp)))
 (let ((?t12 (* ?t1 ?t11)))
 (let (($t13 (and (=> (>= ?t11 1) (>= ?t12 ?t1)) (=> (<= ?t11 (- 1)) (<= ?t12 (- ?t1))))))
 (let (($t14 (and (and $t13 (=> (>= ?t11 0) (>= ?t12 0))) (=> (<= ?t11 0) (<= ?t12 0)))))
 (let (($t15 (>= ?t1 1)))
 (=> $t15 $t14)))))))))))
(assert
 (let ((?t4 (* lcm_y!2 split_div_align)))
 (let ((?t5 (* lcm_y!2 start_div_align)))
 (let ((?t6 (+ ?t5 ?t4)))
 (let (($t16 (>= q!29 ?t6)))
 (not $t16))))))
(check-sat)
