; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 75 'pos-owner-product': o = r gives o*I = r*I
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!37 () Int)
(declare-fun q!39 () Int)
(declare-fun rank () Int)
(assert
 (let (($t1 (=> (<= (- (- q!37 (* q!39 dcp)) rank) 0) (<= (* interleave (- (- q!37 (* q!39 dcp)) rank)) 0))))
 (let (($t2 (=> (>= (- (- q!37 (* q!39 dcp)) rank) 0) (>= (* interleave (- (- q!37 (* q!39 dcp)) rank)) 0))))
 (let ((?t3 (- interleave)))
 (let ((?t4 (- q!37 (* q!39 dcp))))
 (let ((?t5 (- ?t4 rank)))
 (let ((?t6 (* interleave ?t5)))
 (let (($t7 (and (=> (>= ?t5 1) (>= ?t6 interleave)) (=> (<= ?t5 (- 1)) (<= ?t6 ?t3)))))
 (let (($t8 (>= interleave 1)))
 (=> $t8 (and (and $t7 $t2) $t1)))))))))))
(assert
 (let ((?t9 (* rank interleave)))
 (let ((?t4 (- q!37 (* q!39 dcp))))
 (let ((?t10 (* ?t4 interleave)))
 (let (($t11 (= ?t4 rank)))
 (let (($t12 (=> $t11 (= ?t10 ?t9))))
 (not $t12)))))))
(check-sat)
