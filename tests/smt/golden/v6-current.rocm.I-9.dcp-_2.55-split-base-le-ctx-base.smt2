; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 55 'split-base-le-ctx-base': b_split*I <= b_ctx*I (b_ctx >= Ts = b_split)
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
(declare-fun q!29 () Int)
(declare-fun q!35 () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 split_div_align)))
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (let ((?t3 (+ ?t2 ?t1)))
 (let ((?t4 (* split_div_align lcm!0)))
 (let ((?t5 (+ start ?t4)))
 (let ((?t6 (- ?t5 (* (* q!35 interleave) dcp))))
 (let (($t7 (= ?t6 0)))
 (and $t7 (= q!35 ?t3))))))))))
(assert
 (let ((?t1 (* lcm_y!2 split_div_align)))
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (let ((?t3 (+ ?t2 ?t1)))
 (>= q!29 ?t3)))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let (($t9 (=> (<= (- q!29 q!35) 0) (<= (* interleave (- q!29 q!35)) 0))))
 (let (($t10 (=> (>= (- q!29 q!35) 0) (>= (* interleave (- q!29 q!35)) 0))))
 (let (($t11 (=> (<= (- q!29 q!35) (- 1)) (<= (* interleave (- q!29 q!35)) (- interleave)))))
 (let (($t12 (=> (>= (- q!29 q!35) 1) (>= (* interleave (- q!29 q!35)) interleave))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 (and (and (and $t12 $t11) $t10) $t9))))))))
(assert
 (let ((?t13 (* q!29 interleave)))
 (let ((?t14 (* q!35 interleave)))
 (let (($t15 (<= ?t14 ?t13)))
 (not $t15)))))
(check-sat)
