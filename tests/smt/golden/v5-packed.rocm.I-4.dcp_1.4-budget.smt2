; chunkproof prove: v5-packed / rocm / I-4 (per chunk, the sum of span lengths is <= S)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 4 'budget': without DCP rows are tokens: rows + len <= S
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block chunk_tokens ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun block () Int)
(declare-fun chunk_tokens () Int)
(declare-fun ctx () Int)
(declare-fun q!9 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (= chunk_tokens rows)))
 (let (($t2 (>= chunk_tokens 0)))
 (and $t2 $t1))))
(assert
 (let (($t3 (= split_div_align q!9)))
 (let (($t4 (or $t3 (not (<= (+ rows (* (+ split_div_align 1) block)) S)))))
 (let (($t5 (and (and (>= split_div_align 0) (<= split_div_align q!9)) (<= (+ rows (* split_div_align block)) S))))
 (and $t5 $t4)))))
(assert
 (let (($t6 (>= rows 0)))
 (and $t6 (<= rows S))))
(assert
 (let ((?t7 (* split_div_align block)))
 (let ((?t8 (- ctx start)))
 (let (($t9 (<= (+ rows ?t8) S)))
 (let (($t10 (=> (or $t9 (>= split_div_align 1)) (<= (+ chunk_tokens (ite $t9 ?t8 ?t7)) S))))
 (not $t10))))))
(check-sat)
