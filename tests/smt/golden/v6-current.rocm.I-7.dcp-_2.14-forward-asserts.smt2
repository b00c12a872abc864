; chunkproof prove: v6-current / rocm / I-7 (under DCP, per chunk, the padded local rows fit S/W)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 14 'forward-asserts': toks <= S // W gives toks <= R // (W+1) = allgather_offset and toks*W <= S
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!11 () Int)
(declare-fun q!17 () Int)
(declare-fun q!23 () Int)
(declare-fun q!5 () Int)
(declare-fun q!9 () Int)
(declare-fun r!6 () Int)
(declare-fun rows () Int)
(assert
 (let ((?t1 (+ rows (- (* q!17 interleave) (* q!9 interleave)))))
 (let (($t2 (<= ?t1 q!5)))
 (let ((?t3 (+ rows (- (* q!11 interleave) (* q!9 interleave)))))
 (let (($t4 (<= ?t3 q!5)))
 (let (($t5 (not $t4)))
 (and (=> $t4 $t4) (=> $t5 $t2))))))))
(assert
 (= q!23 q!5))
(assert
 (let (($t6 (and (and (= S (+ (* dcp q!5) r!6)) (>= r!6 0)) (< r!6 dcp))))
 (let (($t7 (> dcp 0)))
 (=> $t7 $t6))))
(assert
 (let (($t8 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t8)))
(assert
 (let ((?t3 (+ rows (- (* q!11 interleave) (* q!9 interleave)))))
 (let ((?t9 (- q!5 ?t3)))
 (let ((?t10 (* dcp ?t9)))
 (let (($t11 (and (=> (>= ?t9 1) (>= ?t10 dcp)) (=> (<= ?t9 (- 1)) (<= ?t10 (- dcp))))))
 (let (($t12 (and (and $t11 (=> (>= ?t9 0) (>= ?t10 0))) (=> (<= ?t9 0) (<= ?t10 0)))))
 (let (($t13 (>= dcp 1)))
 (=> $t13 $t12))))))))
(assert
 (let ((?t1 (+ rows (- (* q!17 interleave) (* q!9 interleave)))))
 (let ((?t14 (- q!5 ?t1)))
 (let ((?t15 (* dcp ?t14)))
 (let (($t16 (and (=> (>= ?t14 1) (>= ?t15 dcp)) (=> (<= ?t14 (- 1)) (<= ?t15 (- dcp))))))
 (let (($t17 (and (and $t16 (=> (>= ?t14 0) (>= ?t15 0))) (=> (<= ?t14 0) (<= ?t15 0)))))
 (let (($t13 (>= dcp 1)))
 (=> $t13 $t17))))))))
(assert
 (let ((?t1 (+ rows (- (* q!17 interleave) (* q!9 interleave)))))
 (let ((?t3 (+ rows (- (* q!11 interleave) (* q!9 interleave)))))
 (let (($t4 (<= ?t3 q!5)))
 (let (($t5 (not $t4)))
 (let (($t18 (and (=> $t4 (and (<= ?t3 q!23) (<= (* ?t3 dcp) S))) (=> $t5 (and (<= ?t1 q!23) (<= (* ?t1 dcp) S))))))
 (not $t18)))))))
(check-sat)
