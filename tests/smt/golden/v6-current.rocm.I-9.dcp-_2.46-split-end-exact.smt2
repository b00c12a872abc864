; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 46 'split-end-exact': (I*W)*Ts = (I*W)*b + rem with 0 <= rem < I*W: rem = 0, b = Ts
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!35 () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* interleave dcp)))
 (let ((?t2 (- ?t1 1)))
 (let ((?t3 (* split_div_align lcm!0)))
 (let ((?t4 (+ start ?t3)))
 (let ((?t5 (- ?t4 (* (* q!35 interleave) dcp))))
 (and (>= ?t5 0) (<= ?t5 ?t2))))))))
(assert
 (let ((?t6 (* lcm_y!2 split_div_align)))
 (let ((?t7 (* lcm_y!2 start_div_align)))
 (let ((?t8 (+ ?t7 ?t6)))
 (let (($t9 (>= ?t8 0)))
 (let ((?t3 (* split_div_align lcm!0)))
 (let ((?t4 (+ start ?t3)))
 (and (= ?t4 (* (* interleave dcp) ?t8)) $t9))))))))
(assert
 (let (($t10 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t10)))
(assert
 (let ((?t6 (* lcm_y!2 split_div_align)))
 (let ((?t7 (* lcm_y!2 start_div_align)))
 (let ((?t8 (+ ?t7 ?t6)))
 (let ((?t11 (- ?t8 q!35)))
 (let ((?t1 (* interleave dcp)))
 (let ((?t12 (* ?t1 ?t11)))
 (let (($t13 (and (=> (>= ?t11 1) (>= ?t12 ?t1)) (=> (<= ?t11 (- 1)) (<= ?t12 (- ?t1))))))
 (let (($t14 (and (and $t13 (=> (>= ?t11 0) (>= ?t12 0))) (=> (<= ?t11 0) (<= ?t12 0)))))
 (let (($t15 (>= ?t1 1)))
 (=> $t15 $t14)))))))))))
(assert
 (let ((?t6 (* lcm_y!2 split_div_align)))
 (let ((?t7 (* lcm_y!2 start_div_align)))
 (let ((?t8 (+ ?t7 ?t6)))
 (let ((?t3 (* split_div_align lcm!0)))
 (let ((?t4 (+ start ?t3)))
 (let ((?t5 (- ?t4 (* (* q!35 interleave) dcp))))
 (let (($t16 (= ?t5 0)))
 (let (($t17 (and $t16 (= q!35 ?t8))))
 (not $t17))))))))))
(check-sat)
