; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 40 'need-one-align': k = 0: need(start, align) = (Tq + mA)*I - Tq*I = I*mA <= S // W
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!19 () Int)
(declare-fun q!5 () Int)
(declare-fun q!9 () Int)
(declare-fun split_div_align () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (= split_div_align 0)))
 (=> $t1 (= q!19 (+ (* lcm_y!2 start_div_align) lcm_y!2)))))
(assert
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (= q!9 ?t2)))
(assert
 (let ((?t3 (* interleave lcm_y!2)))
 (>= q!5 ?t3)))
(assert
 (let (($t4 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t4)))
(assert
 (let ((?t5 (- (- q!19 (* lcm_y!2 start_div_align)) lcm_y!2)))
 (let ((?t6 (* interleave ?t5)))
 (let (($t7 (and (=> (>= ?t5 1) (>= ?t6 interleave)) (=> (<= ?t5 (- 1)) (<= ?t6 (- interleave))))))
 (let (($t8 (and (and $t7 (=> (>= ?t5 0) (>= ?t6 0))) (=> (<= ?t5 0) (<= ?t6 0)))))
 (let (($t4 (>= interleave 1)))
 (=> $t4 $t8)))))))
(assert
 (let (($t9 (=> (<= (- q!9 (* lcm_y!2 start_div_align)) 0) (<= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let (($t10 (=> (>= (- q!9 (* lcm_y!2 start_div_align)) 0) (>= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let ((?t11 (- interleave)))
 (let ((?t2 (* lcm_y!2 start_div_align)))
 (let ((?t12 (- q!9 ?t2)))
 (let ((?t13 (* interleave ?t12)))
 (let (($t14 (and (=> (>= ?t12 1) (>= ?t13 interleave)) (=> (<= ?t12 (- 1)) (<= ?t13 ?t11)))))
 (let (($t4 (>= interleave 1)))
 (=> $t4 (and (and $t14 $t10) $t9)))))))))))
(assert
 (let (($t1 (= split_div_align 0)))
 (let (($t15 (=> $t1 (<= (- (* q!19 interleave) (* q!9 interleave)) q!5))))
 (not $t15))))
(check-sat)
