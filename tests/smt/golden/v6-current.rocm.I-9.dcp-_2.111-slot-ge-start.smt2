; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 111 'slot-ge-start': x >= start iff t >= Tq iff local index >= local_start
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
(declare-fun q!45 () Int)
(declare-fun q!47 () Int)
(declare-fun q!51 () Int)
(declare-fun q!9 () Int)
(declare-fun rank () Int)
(declare-fun slot () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= q!45 ?t1)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t5 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let (($t6 (>= ?t5 start)))
 (= $t6 $t2))))))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= q!45 ?t1)))
 (let ((?t7 (* q!9 interleave)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t5 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t8 (- ?t5 (* q!47 interleave))))
 (let ((?t9 (+ (* q!51 interleave) ?t8)))
 (let (($t10 (>= ?t9 ?t7)))
 (= $t10 $t2)))))))))))
(assert
 (let ((?t7 (* q!9 interleave)))
 (let ((?t3 (* q!45 interleave)))
 (let ((?t4 (- slot ?t3)))
 (let ((?t5 (+ (+ (* q!45 (* interleave dcp)) (* rank interleave)) ?t4)))
 (let ((?t8 (- ?t5 (* q!47 interleave))))
 (let ((?t9 (+ (* q!51 interleave) ?t8)))
 (let (($t10 (>= ?t9 ?t7)))
 (let (($t6 (>= ?t5 start)))
 (let (($t11 (= $t6 $t10)))
 (not $t11)))))))))))
(check-sat)
