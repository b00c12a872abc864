; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 11 'take-all': the last piece [start, ctx) ends at ctx and is non-empty
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun block () Int)
(declare-fun ctx () Int)
(declare-fun rows () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= start_div_align 0)))
 (and (and $t1 (= start (* block start_div_align))) (< start ctx))))
(assert
 (let (($t2 (and (= (+ start (- ctx start)) ctx) (>= (- ctx start) 1))))
 (let (($t3 (<= (+ rows (- ctx start)) S)))
 (let (($t4 (=> $t3 $t2)))
 (not $t4)))))
(check-sat)
