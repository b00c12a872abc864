; chunkproof prove: v4-pr47327 / cuda / I-2 (the chunk width (M or Mmax) is positive)
; split: n=1; method: split n = 1, symbolic B/W/I, arbitrary chunk index
; step 0 'M-positive': M = round_down(S // n, round_to) > 0 for n <= max_num_seqs prefills
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..1 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: M S block chunk ctx0 dcp interleave max_model_len max_num_seqs
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun block () Int)
(declare-fun block_div_interleave () Int)
(declare-fun interleave () Int)
(declare-fun max_model_len () Int)
(declare-fun max_num_seqs () Int)
(declare-fun q!0 () Int)
(declare-fun r!1 () Int)
(assert
 (>= block 1))
(assert
 (<= block 16384))
(assert
 (let (($t1 (>= interleave 1)))
 (and $t1 (<= interleave block))))
(assert
 (<= interleave 16384))
(assert
 (let (($t2 (>= block_div_interleave 1)))
 (and $t2 (= block (* interleave block_div_interleave)))))
(assert
 (>= max_model_len 1))
(assert
 (<= max_model_len 2097152))
(assert
 (>= max_num_seqs 1))
(assert
 (<= max_num_seqs 1024))
(assert
 (let ((?t3 (* max_num_seqs block)))
 (let ((?t4 (* (* 4 max_num_seqs) block)))
 (let ((?t5 (* 8 max_model_len)))
 (let ((?t6 (ite (>= ?t5 ?t4) ?t5 ?t4)))
 (let ((?t7 (ite (>= ?t6 65536) 65536 ?t6)))
 (let ((?t8 (ite (>= ?t7 ?t3) ?t7 ?t3)))
 (= S ?t8))))))))
(assert
 (>= max_num_seqs 1))
(assert
 (let (($t9 (>= r!1 0)))
 (let (($t10 (and (and (= (div S 1) (+ (* block q!0) r!1)) $t9) (< r!1 block))))
 (let (($t11 (> block 0)))
 (=> $t11 $t10)))))
(assert
 (let ((?t12 (* q!0 block)))
 (let (($t13 (> ?t12 0)))
 (not $t13))))
(check-sat)
